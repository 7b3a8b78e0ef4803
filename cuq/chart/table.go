package chart

import (
	"fmt"
	"html"
	"strings"
)

// Table is a table of text cells, shown as an HTML table whose columns sort
// on a click on their header (numerically when both cells parse as numbers).
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
}

// NewTable returns a table after checking that every row has one cell per
// header column.
func NewTable(caption string, header []string, rows [][]string) (*Table, error) {
	if len(header) == 0 {
		return nil, fmt.Errorf("chart.NewTable %q: no columns", caption)
	}
	for i, r := range rows {
		if len(r) != len(header) {
			return nil, fmt.Errorf("chart.NewTable %q: row %d has %d cells for %d columns", caption, i, len(r), len(header))
		}
	}
	return &Table{Caption: caption, Header: header, Rows: rows}, nil
}

// sortScript sorts the rows of the table containing the clicked header by
// that column, ascending then descending on repeated clicks.
const sortScript = `<script type="text/javascript">
window.cuqSortTable = window.cuqSortTable || function (th) {
  var table = th.closest("table"), body = table.tBodies[0], col = th.cellIndex;
  var asc = th.getAttribute("data-order") !== "asc";
  Array.prototype.forEach.call(th.parentNode.cells, function (c) { c.removeAttribute("data-order"); });
  th.setAttribute("data-order", asc ? "asc" : "desc");
  var rows = Array.prototype.slice.call(body.rows);
  rows.sort(function (a, b) {
    var x = a.cells[col].textContent, y = b.cells[col].textContent;
    var nx = parseFloat(x), ny = parseFloat(y), r;
    if (!isNaN(nx) && !isNaN(ny)) { r = nx - ny; } else { r = x.localeCompare(y); }
    return asc ? r : -r;
  });
  rows.forEach(function (r) { body.appendChild(r); });
};
</script>
`

// HTML returns the table as an HTML fragment; cells are escaped.
func (t *Table) HTML() string {
	var b strings.Builder
	b.WriteString(sortScript)
	b.WriteString("<table class=\"cuq-table\" style=\"border-collapse:collapse;font-family:sans-serif;font-size:13px;\">\n")
	if t.Caption != "" {
		fmt.Fprintf(&b, "<caption style=\"font-weight:bold;padding:4px;text-align:left;white-space:nowrap;\">%s</caption>\n", html.EscapeString(t.Caption))
	}
	b.WriteString("<thead><tr>")
	for _, h := range t.Header {
		fmt.Fprintf(&b, "<th onclick=\"cuqSortTable(this)\" style=\"cursor:pointer;border-bottom:2px solid #444;padding:4px 8px;\" title=\"sort\">%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(&b, "<td style=\"border-bottom:1px solid #ddd;padding:4px 8px;text-align:right;\">%s</td>", html.EscapeString(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	return b.String()
}
