// What the load measured (analyzer/load_outcome.h): a load that mostly
// failed, said with its real status and share.
#include <catch2/catch.hpp>

#include "analyzer/analyze.h"
#include "analyzer/load_outcome.h"
#include "synthetic.h"

using namespace loopdoctor;
using loopdoctor::testing::ClientView;
using loopdoctor::testing::Scenario;

namespace {

Timeline timeline(const Scenario& sc, const ClientView& c) {
  return build_timeline(loopdoctor::testing::with_client_view(loopdoctor::testing::make_recording(sc), c));
}

LoadFailure failure_of(const ClientView& c) { return load_failure(timeline(Scenario{}, c)); }

}  // namespace

TEST_CASE("load failure: every response a 404 is said with the status, the count and the path") {
  ClientView c;
  c.status = {{"404", 21307}};
  const LoadFailure f = failure_of(c);
  CHECK(f.failed);
  CHECK(f.share == 1.0);
  CHECK(f.top == "404");
  CHECK(f.top_is_status);
  CHECK(f.text == "Every response to GET / was 404 Not Found (21307 of 21307 requests) — check the --load path.");
  CHECK(f.measured == "the server answering 404");
}

TEST_CASE("load failure: a share of one status, mixed statuses, errors") {
  ClientView part;
  part.status = {{"200", 400}, {"404", 600}};
  CHECK(failure_of(part).text ==
        "60 % of responses to GET / were 404 Not Found (600 of 1000 requests) — check the --load path.");
  ClientView mixed;
  mixed.status = {{"200", 100}, {"500", 300}, {"503", 600}};
  CHECK(failure_of(mixed).text ==
        "90 % of requests to GET / failed (900 of 1000), most with 503 Service Unavailable (600) — the server "
        "failed to answer: its own messages, passed through above, say why.");
  ClientView timeouts;
  timeouts.status = {{"200", 100}};
  timeouts.timeouts = 900;
  const LoadFailure t = failure_of(timeouts);
  CHECK(t.failed);
  CHECK(t.top == "timeout");
  CHECK_FALSE(t.top_is_status);
  CHECK(t.text == "90 % of requests to GET / failed (900 of 1000), most by timeout (900) — no response came "
                  "within the load's timeout (--timeout).");
  CHECK(t.measured == "requests failing (timeout)");
}

TEST_CASE("load failure: under half failed, or no built-in load, is no failure") {
  ClientView few;
  few.status = {{"200", 600}, {"404", 400}};
  CHECK(failure_of(few).share == Approx(0.4));
  CHECK_FALSE(failure_of(few).failed);
  CHECK(failure_of(few).text.empty());
  CHECK_FALSE(load_failure(build_timeline(loopdoctor::testing::make_recording(Scenario{}))).failed);
}
