package reftables

import (
	"fmt"
	"io"
	"strings"
)

// markdownSettings are the setting labels of the Markdown table.
var markdownSettings = [NumOODSettings]string{"loc", "gaussian", "bernoulli"}

// markdownMetrics are the setting metrics shown in the Markdown table, with
// the paper's measure names: ID accuracy, then the AUROC of LC (max-prob),
// TU, AU, EU, EU_PC and EU_SO.
var markdownMetrics = []struct {
	label  string
	metric SettingMetric
}{
	{"ID acc", IDAcc}, {"LC", OODTotal}, {"TU", OODTotalEntropy}, {"AU", OODAleatoricEntropy},
	{"EU", OODEpistemicEntropyDiff}, {"EU_PC", OODEpistemic}, {"EU_SO", OODEpistemicEntropy},
}

// WriteIDOODMarkdown writes the numbers of id_ood.csv as readable Markdown:
// one section per dataset (in order of first appearance), models as rows,
// and as columns the classification accuracy and, for each OOD setting with
// at least one value for that dataset, the ID accuracy and the OOD AUROCs of
// LC, TU, AU, EU, EU_PC and EU_SO. Cells are percentages "84.35 ± 0.12"
// (without "± …" when the SE is absent) and "–" when the value is absent.
func WriteIDOODMarkdown(w io.Writer, rows []IDOODRow) error {
	var order []string
	byDataset := map[string][]*IDOODRow{}
	for i := range rows {
		d := rows[i].Dataset
		if _, ok := byDataset[d]; !ok {
			order = append(order, d)
		}
		byDataset[d] = append(byDataset[d], &rows[i])
	}
	var b strings.Builder
	for k, d := range order {
		if k > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "### %s\n\n", strings.ReplaceAll(d, `\\`, " "))
		var settings []int
		for s := 0; s < NumOODSettings; s++ {
			if settingHasData(byDataset[d], s) {
				settings = append(settings, s)
			}
		}
		head := []string{"Model", "Acc"}
		for _, s := range settings {
			for _, m := range markdownMetrics {
				head = append(head, markdownSettings[s]+" "+m.label)
			}
		}
		writeMarkdownRow(&b, head)
		sep := make([]string, len(head))
		for j := range sep {
			sep[j] = "---:"
		}
		sep[0] = "---"
		writeMarkdownRow(&b, sep)
		for _, r := range byDataset[d] {
			cells := []string{r.Model, markdownCell(r.Acc)}
			for _, s := range settings {
				for _, m := range markdownMetrics {
					cells = append(cells, markdownCell(r.Settings[s].Metrics[m.metric]))
				}
			}
			writeMarkdownRow(&b, cells)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("reftables: WriteIDOODMarkdown: %w", err)
	}
	return nil
}

func settingHasData(rows []*IDOODRow, s int) bool {
	for _, r := range rows {
		for _, m := range r.Settings[s].Metrics {
			if m.Value.ok() {
				return true
			}
		}
	}
	return false
}

func markdownCell(m Metric) string {
	if !m.Value.ok() {
		return "–"
	}
	if !m.SE.ok() {
		return fmt.Sprintf("%.2f", 100*m.Value.Value)
	}
	return fmt.Sprintf("%.2f ± %.2f", 100*m.Value.Value, 100*m.SE.Value)
}

func writeMarkdownRow(b *strings.Builder, cells []string) {
	b.WriteString("| ")
	b.WriteString(strings.Join(cells, " | "))
	b.WriteString(" |\n")
}
