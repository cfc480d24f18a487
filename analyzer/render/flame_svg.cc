#include "analyzer/render/flame_svg.h"

#include <algorithm>

#include "analyzer/render/text.h"

namespace loopdoctor::render {
namespace {

constexpr double kWidthPx = 960;
constexpr double kRowPx = 18;
// Monospace-ish average glyph width at the 11px label size; a label that does
// not fit is cut with an ellipsis, one under this many characters is dropped.
constexpr double kCharPx = 6.6;
constexpr std::size_t kMinLabelChars = 3;

const char* kind_class(profile::FrameKind k) {
  using profile::FrameKind;
  switch (k) {
    case FrameKind::kApplication: return "fa";
    case FrameKind::kLibrary: return "fl";
    case FrameKind::kNode: return "fn";
    case FrameKind::kGc: return "fg";
    default: return "fx";  // native, pseudo-frames
  }
}

struct Ctx {
  double total;
  std::string what;
  std::string out;
  int rows = 0;
};

void draw(Ctx& c, const profile::FlameNode& n, double x, int depth) {
  const double share = n.samples / c.total;
  if (share < kMinFlameShare || depth >= kMaxFlameRows) return;
  const double w = share * kWidthPx, y = depth * kRowPx;
  c.rows = std::max(c.rows, depth + 1);
  const std::string label =
      n.location == "(native)" ? n.function + " (native)" : n.function + " (" + n.location + ")";
  c.out += "<g class=\"";
  c.out += kind_class(n.kind);
  c.out += "\"><title>";
  c.out += xml_escape(label + " — " + fmt_percent(share, 1) + " of " + c.what);
  c.out += "</title><rect x=\"";
  append_coord(c.out, x);
  c.out += "\" y=\"";
  append_coord(c.out, y);
  c.out += "\" width=\"";
  append_coord(c.out, std::max(0.5, w - 0.5));
  c.out += "\" height=\"";
  append_coord(c.out, kRowPx - 1);
  c.out += "\"/>";
  const auto fit = static_cast<std::size_t>((w - 6) / kCharPx);
  if (fit >= kMinLabelChars) {
    // An anonymous function is known by where it is.
    std::string text = n.function == "(anonymous)" ? n.location : n.function;
    if (text.size() > fit) {
      std::size_t cut = fit - 1;  // never inside a UTF-8 sequence
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      text = text.substr(0, cut) + "…";
    }
    c.out += "<text x=\"";
    append_coord(c.out, x + 3);
    c.out += "\" y=\"";
    append_coord(c.out, y + kRowPx - 5);
    c.out += "\">" + xml_escape(text) + "</text>";
  }
  c.out += "</g>";
  double cx = x;
  for (const auto& ch : n.children) {
    draw(c, ch, cx, depth + 1);
    cx += ch.samples / c.total * kWidthPx;
  }
}

}  // namespace

std::string flame_svg(const profile::FlameNode& root, const std::string& what) {
  if (root.samples <= 0 || root.children.empty()) return "";
  Ctx c{root.samples, what, {}, 0};
  double x = 0;
  for (const auto& ch : root.children) {
    draw(c, ch, x, 0);
    x += ch.samples / c.total * kWidthPx;
  }
  if (c.rows == 0) return "";
  std::string svg = "<svg class=\"flame\" viewBox=\"0 0 ";
  append_coord(svg, kWidthPx);
  svg += " ";
  append_coord(svg, c.rows * kRowPx);
  svg += "\" role=\"img\" aria-label=\"" + xml_escape("stacks in " + what) + "\">";
  svg += c.out;
  svg += "</svg>";
  return svg;
}

}  // namespace loopdoctor::render
