package experiment_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq"
	"github.com/cuqgnn/cuqgnn/cuq/eval"
	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/experiment"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// TestGraphCalibrationTable measures the validation NLL and the test ECE
// of APPNP, GPN and CUQ-PPR on CoraML and CiteSeer before calibration,
// after temperature scaling, CaGCN, GATS and GATS stopped on the
// validation NLL, over CUQ_CALIBRATION_TABLE splits (init 1, as the grid
// trains them), and prints the Markdown table of docs/guide/beyond.md.
// It runs only when CUQ_CALIBRATION_TABLE is set:
//
//	CUQ_CALIBRATION_TABLE=10 go test ./experiment/ -run TestGraphCalibrationTable -v -timeout 30m
//
// It checks that temperature scaling never raises the validation NLL (it
// minimises it over T, T = 1 included).
func TestGraphCalibrationTable(t *testing.T) {
	splits, _ := strconv.Atoi(os.Getenv("CUQ_CALIBRATION_TABLE"))
	if splits < 1 {
		t.Skip("set CUQ_CALIBRATION_TABLE to the number of splits")
	}
	dir := testenv.RequireDatasets(t)
	methods := []struct {
		name string
		cal  func(*cuq.Prediction, graph.Split) (*cuq.Prediction, error)
	}{
		{"uncalibrated", func(p *cuq.Prediction, _ graph.Split) (*cuq.Prediction, error) { return p, nil }},
		{"TS", func(p *cuq.Prediction, s graph.Split) (*cuq.Prediction, error) {
			q, _, err := p.TemperatureScaled(s.Val)
			return q, err
		}},
		{"CaGCN", func(p *cuq.Prediction, s graph.Split) (*cuq.Prediction, error) {
			q, _, err := cuq.CaGCN().Done().Calibrate(p, s)
			return q, err
		}},
		{"GATS", func(p *cuq.Prediction, s graph.Split) (*cuq.Prediction, error) {
			q, _, err := cuq.GATS().Done().Calibrate(p, s)
			return q, err
		}},
		{"GATS (stop on val)", func(p *cuq.Prediction, s graph.Split) (*cuq.Prediction, error) {
			q, _, err := cuq.GATS().StopOnValidation().Done().Calibrate(p, s)
			return q, err
		}},
	}
	var table strings.Builder
	table.WriteString("| dataset | model | metric |")
	for _, m := range methods {
		table.WriteString(" " + m.name + " |")
	}
	table.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(methods)) + "\n")
	for _, name := range []string{"CoraML", "CiteSeer"} {
		d, err := experiment.LoadDataset(name, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, model := range []experiment.Model{experiment.APPNP, experiment.GPN, experiment.CUQPPR} {
			nll := make([][]float64, len(methods))
			ece := make([][]float64, len(methods))
			spent := make([]time.Duration, len(methods))
			for k := 1; k <= splits; k++ {
				split, err := d.Split(k)
				if err != nil {
					t.Fatal(err)
				}
				c, err := model.Classifier(d, d.Graph, 1)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Fit(split); err != nil {
					t.Fatal(err)
				}
				pred, err := c.Predict(nil)
				if err != nil {
					t.Fatal(err)
				}
				for m, method := range methods {
					start := time.Now()
					q, err := method.cal(pred, split)
					spent[m] += time.Since(start)
					if err != nil {
						t.Fatalf("%s %v split %d %s: %v", name, model, k, method.name, err)
					}
					val, err := q.Calibration(split.Val, eval.CalibrationOptions{})
					if err != nil {
						t.Fatal(err)
					}
					test, err := q.Calibration(split.Test, eval.CalibrationOptions{})
					if err != nil {
						t.Fatal(err)
					}
					nll[m] = append(nll[m], val.NLL)
					ece[m] = append(ece[m], test.ECE)
				}
				if nll[1][k-1] > nll[0][k-1]+1e-12 {
					t.Errorf("%s %v split %d: temperature scaling raised the validation NLL from %v to %v", name, model, k, nll[0][k-1], nll[1][k-1])
				}
			}
			for _, row := range []struct {
				metric string
				values [][]float64
			}{{"val NLL", nll}, {"test ECE", ece}} {
				fmt.Fprintf(&table, "| %s | %v | %s |", name, model, row.metric)
				for m := range methods {
					s := eval.Aggregate(row.values[m], 0)
					fmt.Fprintf(&table, " %.3f ± %.3f |", s.Mean, s.SE)
				}
				table.WriteString("\n")
			}
			t.Logf("%s %v: calibration time per split %v", name, model, func() []string {
				out := make([]string, len(methods))
				for m, s := range spent {
					out[m] = fmt.Sprintf("%s %.2fs", methods[m].name, s.Seconds()/float64(splits))
				}
				return out
			}())
		}
	}
	t.Log("\n" + table.String())
}
