#!/usr/bin/env bash
# Every loopdoctor command README.md shows (its ```sh blocks) exists, and
# every option it gives that command is one the command's --help lists: a
# new user copies these lines first (issue 30).
set -euo pipefail
LD=${LOOPDOCTOR:?} ROOT=${LOOPDOCTOR_ROOT:?}
commands=$(mktemp)
trap 'rm -f "$commands"' EXIT
# One line per command shown: "<subcommand> <option> <option> ...". Only the
# options before the target's `--`, and none of a command substitution's
# or a quoted load command's (one token to shlex).
python3 - "$ROOT/README.md" >"$commands" <<'PY'
import re, shlex, sys
text = open(sys.argv[1]).read()
for block in re.findall(r"```sh\n(.*?)```", text, re.S):
    for line in block.replace("\\\n", " ").splitlines():
        line = line.split(" #", 1)[0].strip()
        if line.startswith("#") or "loopdoctor " not in line:
            continue
        words = shlex.split(line[line.index("loopdoctor ") + len("loopdoctor "):])
        opts = []
        for w in words[1:]:
            if w == "--" or w[0] in "$|&;<>" or w.startswith("2>"):
                break
            if w.startswith("-") and w != "-":
                opts.append(w.split("=", 1)[0])
        print(" ".join([words[0]] + opts))
PY
n=$(wc -l <"$commands")
(( n >= 10 )) || { echo "FAIL: only $n loopdoctor commands found in README.md"; exit 1; }
bad=0
while read -r sub opts; do
  help=$("$LD" "$sub" --help 2>&1) || { echo "FAIL: \`loopdoctor $sub --help\` fails: $help"; bad=1; continue; }
  for o in $opts; do
    # CLI11 lists "-c,--connections" and "--json" followed by a space, a
    # comma or the end of the line.
    grep -Eq -- "(^|[ ,])$o([ ,=]|$)" <<<"$help" || { echo "FAIL: README's \`loopdoctor $sub ... $o\`: $o not in \`loopdoctor $sub --help\`"; bad=1; }
  done
done <"$commands"
echo "$n commands of README.md checked: $(cut -d' ' -f1 "$commands" | sort -u | tr '\n' ' ')"
exit $bad
