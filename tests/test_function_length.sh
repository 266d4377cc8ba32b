#!/usr/bin/env bash
# No function of the device layer (src/device/*.c) or of a capability's device path (src/*/*_device.c) is
# longer than MAX lines (120), from the line of its name to its closing brace: every device path is built
# from the launch plan in steps (docs/device.md, "How a capability's device path is built").
# Method: Universal Ctags (--fields=+ne: each function's first and end line) where it is installed; else an
# awk that counts braces outside comments, strings and character constants, from the first line at depth
# 0 that opens a block after a line ending in ')' or holding '(' (the function's head) to its close.
# Usage: test_function_length.sh SRCDIR [MAX]
set -euo pipefail
cd "$1"
max=${2:-120}
files=$(ls src/device/*.c src/*/*_device.c 2>/dev/null | sort)
[ -n "$files" ] || { echo "function length: no files" >&2; exit 1; }

lengths() { # prints "FILE NAME FIRST LAST" per function
  if [ -z "${RAID_NO_CTAGS:-}" ] && ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
    # shellcheck disable=SC2086
    ctags --fields=+ne --c-kinds=f -o - $files |
      awk -F'\t' '{l = e = 0; for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) l = substr($i, 6); if ($i ~ /^end:/) e = substr($i, 5) }
                   print $2, $1, l, e}'
  else
    # shellcheck disable=SC2086
    awk '
      FNR == 1 { depth = 0; incom = 0; head = ""; headline = 0 }
      {
        line = $0; out = ""; i = 1; n = length(line); instr = ""
        while (i <= n) {                       # strip comments, strings and character constants
          c = substr(line, i, 1); d = substr(line, i, 2)
          if (incom) { if (d == "*/") { incom = 0; i += 2 } else i++; continue }
          if (instr != "") { if (c == "\\") i += 2; else { if (c == instr) instr = ""; i++ }; continue }
          if (d == "/*") { incom = 1; i += 2; continue }
          if (d == "//") break
          if (c == "\"" || c == "'\''") { instr = c; i++; continue }
          out = out c; i++
        }
        if (depth == 0 && out ~ /^[A-Za-z_].*\(/ && out !~ /;[ \t]*$/) {
          head = out; sub(/\(.*/, "", head); sub(/.*[ \t*]/, "", head); headline = FNR
        }
        for (j = 1; j <= length(out); j++) {
          c = substr(out, j, 1)
          if (c == "{") { if (depth == 0) start = headline ? headline : FNR; depth++ }
          else if (c == "}") { depth--; if (depth == 0 && head != "") { print FILENAME, head, start, FNR; head = ""; headline = 0 } }
        }
        if (depth == 0 && out ~ /;[ \t]*$/) { head = ""; headline = 0 }
      }' $files
  fi
}

bad=0
total=0
while read -r file name first last; do
  total=$((total + 1))
  len=$((last - first + 1))
  if [ "$len" -gt "$max" ]; then
    echo "function length: $file: $name is $len lines ($first-$last), over $max" >&2
    bad=$((bad + 1))
  fi
done < <(lengths)
echo "function length: $total functions in $(echo "$files" | wc -l) files, $bad over $max lines"
[ "$total" -gt 0 ] && [ "$bad" -eq 0 ]
