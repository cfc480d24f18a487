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

// One box: a frame, or a frame's own time on one line. Its label is cut
// with an ellipsis to the box; the tooltip has it whole.
void box(Ctx& c, const char* cls, double x, int depth, double w, const std::string& label,
         const std::string& tooltip) {
  const double y = depth * kRowPx;
  c.rows = std::max(c.rows, depth + 1);
  c.out += "<g class=\"";
  c.out += cls;
  c.out += "\"><title>";
  c.out += xml_escape(tooltip);
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
    std::string text = label;
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
}

// A frame's own time on its hottest line, right of its callees: V8 gives
// built-ins such as JSON.parse no frame, so this is where they show, by the
// code of the line that calls them (profile_attribution.h FlameNode).
void draw_self_line(Ctx& c, const profile::FlameNode& n, double x, int depth) {
  const double share = n.self_samples / c.total;
  if (share < kMinFlameShare || n.self_line_text.empty() || depth >= kMaxFlameRows) return;
  const std::string fn = n.function == "(anonymous)" ? "the function at " + n.location : n.function;
  box(c, "fs", x, depth, share * kWidthPx, n.self_line_text,
      fn + "'s own time on " + n.self_line + ": " + n.self_line_text + " — " + fmt_percent(share, 1) + " of " +
          c.what + ". A built-in such as JSON.parse called on this line has no frame of its own in V8's "
          "profile: its time is counted here.");
}

void draw(Ctx& c, const profile::FlameNode& n, double x, int depth) {
  const double share = n.samples / c.total;
  if (share < kMinFlameShare || depth >= kMaxFlameRows) return;
  const std::string label =
      n.location == "(native)" ? n.function + " (native)" : n.function + " (" + n.location + ")";
  // An anonymous function is known by where it is.
  box(c, kind_class(n.kind), x, depth, share * kWidthPx, n.function == "(anonymous)" ? n.location : n.function,
      label + " — " + fmt_percent(share, 1) + " of " + c.what);
  double cx = x;
  for (const auto& ch : n.children) {
    draw(c, ch, cx, depth + 1);
    cx += ch.samples / c.total * kWidthPx;
  }
  draw_self_line(c, n, cx, depth + 1);
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
