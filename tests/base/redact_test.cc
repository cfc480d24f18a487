// Each pattern base/redact.h promises to redact, and what it must leave
// alone (the paths, flags and URLs of ordinary runs).
#include "base/redact.h"

#include <catch2/catch.hpp>

using loopdoctor::base::Redactor;

TEST_CASE("secret-named options lose their values", "[redact]") {
  Redactor r;
  CHECK(r.text("node app.js --password=hunter2 --port=3000") == "node app.js --password=[REDACTED] --port=3000");
  CHECK(r.text("node app.js --api-key=abc123 --token s3cr3t") == "node app.js --api-key=[REDACTED] --token [REDACTED]");
  CHECK(r.text("DB_PASSWORD=pw1 node app.js") == "DB_PASSWORD=[REDACTED] node app.js");
  CHECK(r.argv({"node", "app.js", "--token", "s3cr3t", "--secret=x", "--verbose"}) ==
        std::vector<std::string>{"node", "app.js", "--token", "[REDACTED]", "--secret=[REDACTED]", "--verbose"});
  // A secret-named flag followed by another flag has no value to lose.
  CHECK(r.argv({"node", "--auth", "--inspect"}) == std::vector<std::string>{"node", "--auth", "--inspect"});
}

TEST_CASE("query strings, headers and URL userinfo are redacted", "[redact]") {
  Redactor r;
  CHECK(r.text("http://127.0.0.1:3000/api?user=bob&token=tok123&page=2") ==
        "http://127.0.0.1:3000/api?user=bob&token=[REDACTED]&page=2");
  CHECK(r.text("https://alice:pa55@db.example:5432/x?sslkey=k1") == "https://[REDACTED]@db.example:5432/x?sslkey=[REDACTED]");
  CHECK(r.text("wrk -H 'Authorization: Bearer abc.def' http://127.0.0.1:{port}/") ==
        "wrk -H 'Authorization: [REDACTED]' http://127.0.0.1:{port}/");
  CHECK(r.text("Cookie: sid=1; theme=dark") == "Cookie: [REDACTED]");
  CHECK(r.text("x-api-key:  K") == "x-api-key:  [REDACTED]");
}

TEST_CASE("long hex and base64 keys are redacted and paths are not", "[redact]") {
  Redactor r;
  CHECK(r.text("--sig 0123456789abcdef0123456789abcdef") == "--sig [REDACTED]");
  CHECK(r.text("node app.js wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY1") == "node app.js [REDACTED]");
  CHECK(r.text("ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8") == "[REDACTED]");
  for (const char* kept : {"/work/wt/harden/samples/node/hello-world/server.js",
                           "/home/User1/Projects/MyApp2/dist/server-bundle-2024.js",
                           "my-very-long-project-directory-name-2024/index.js", "node --max-old-space-size=4096 app.js",
                           "http://127.0.0.1:3000/slow?n=5", "0123456789abcdef0123456789abcde"})
    CHECK(r.text(kept) == kept);
}

TEST_CASE("values of secret-named environment variables are redacted wherever they appear", "[redact]") {
  Redactor r({"pl4nted-env-value", "dev", "ubuntu"});
  CHECK(r.text("node app.js pl4nted-env-value --mode dev /home/ubuntu") == "node app.js [REDACTED] --mode dev /home/ubuntu");
  CHECK(r.argv({"node", "pl4nted-env-value"}) == std::vector<std::string>{"node", "[REDACTED]"});
}

TEST_CASE("secret environment names are matched strictly", "[redact]") {
  using loopdoctor::base::looks_like_secret_env_name;
  for (const char* n : {"API_SECRET", "GITHUB_TOKEN", "DB_PASSWORD", "STRIPE_API_KEY", "AWS_SECRET_ACCESS_KEY", "SIGNING_KEY"})
    CHECK(looks_like_secret_env_name(n));
  for (const char* n : {"PWD", "OLDPWD", "SSH_AUTH_SOCK", "XAUTHORITY", "XDG_SESSION_TYPE", "DESKTOP_SESSION", "KEYTIMEOUT"})
    CHECK_FALSE(looks_like_secret_env_name(n));
}

TEST_CASE("secret names", "[redact]") {
  using loopdoctor::base::looks_like_secret_name;
  for (const char* n : {"--password", "TOKEN", "api_key", "Authorization", "SESSION_ID", "x-auth-token", "pwd"})
    CHECK(looks_like_secret_name(n));
  for (const char* n : {"--port", "--keep-alive", "NODE_OPTIONS", "page", "--max-old-space-size"})
    CHECK_FALSE(looks_like_secret_name(n));
}
