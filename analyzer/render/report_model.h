// Turns a timeline and its diagnosis into the mustache data the HTML
// template renders. Every string from the target goes in as plain text and
// is escaped by the template's {{ }}; only markup we build ourselves (the SVG
// charts, the CSS) is passed raw.
#pragma once

#include <string>

#include <kainjow/mustache.hpp>

#include "analyzer/diagnosis.h"
#include "analyzer/render/html_report.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor::render {

kainjow::mustache::data report_model(const Timeline& tl, const Diagnosis& dx,
                                     const ReportOptions& opt);


}  // namespace loopdoctor::render
