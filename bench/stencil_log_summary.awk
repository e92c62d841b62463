# Per grid of a `stencil3d --search` log: its name, the one-pass chosen/best, the confirmed one and the
# tuned short list's confirmed one (the last field of the "best", "confirmed" and "tuned" lines). A grid
# that lacks a line says "missing" rather than borrowing the next grid's.
#   awk -f bench/stencil_log_summary.awk search.log
function or_missing(v) { return v == "" ? "missing" : v }
function flush() {
  if (grid != "") print "  " grid, "one pass", or_missing(pass), "confirmed", or_missing(conf), "tuned", or_missing(tuned)
}
/^grid / { flush(); grid = $2; pass = ""; conf = ""; tuned = "" }
/^  best / { pass = $NF }
/^  confirmed / { conf = $NF }
/^  tuned / { tuned = $NF }
END { flush() }
