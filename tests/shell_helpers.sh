# Helpers every shell test's own lib.sh sources.

# `producer | grep_q x` under pipefail fails at random: grep leaves at its
# first match, and a producer still writing (sed of a report, curl of a
# page, a recording's decompression) gets SIGPIPE, its non-zero status
# the pipeline's. This grep reads all of its input.
grep_q() { grep "$@" >/dev/null; }
