package kernelext

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/cuqgnn/cuqgnn/kernelext/explore"
	"github.com/cuqgnn/cuqgnn/kernelext/wasmbundle"
)

// Explorers builds the interactive explorers of package explore into one
// WebAssembly bundle (package wasmbundle): their program compiled for
// js/wasm by the Go toolchain of this machine, each explorer's settings,
// and a static picture of each at its starting values for pages whose
// scripts do not run. In GoNB the program is built in the cell's module
// ($GONB_TMP_DIR), elsewhere in the current directory's. Write the bundle
// to a file with its WriteFile method, or show it in a notebook with
// ShowExplorers. It fails if an explorer was configured with a mistake or
// the program does not build (the go command must be installed).
func Explorers(explorers ...explore.Explorer) (*wasmbundle.Bundle, error) {
	if len(explorers) == 0 {
		return nil, errors.New("kernelext.Explorers: no explorers")
	}
	b := wasmbundle.New(explore.MainPackage)
	// In GoNB, build in the cell's module, so that the program is compiled
	// from the same source as the cell.
	if dir := os.Getenv(protocol.GONB_TMP_DIR_ENV); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			b.Dir(dir)
		}
	}
	for i, e := range explorers {
		if e == nil {
			return nil, fmt.Errorf("kernelext.Explorers: explorer %d is nil", i)
		}
		spec, err := explore.Encode(e)
		if err != nil {
			return nil, fmt.Errorf("kernelext.Explorers: %w", err)
		}
		img, err := explore.Fallback(e)
		if err != nil {
			return nil, fmt.Errorf("kernelext.Explorers: %w", err)
		}
		b.Widget(wasmbundle.Widget{Spec: spec, Fallback: img, Alt: e.Title() + ": static picture at the starting values"})
	}
	bu, err := b.Done()
	if err != nil {
		return nil, fmt.Errorf("kernelext.Explorers: %w", err)
	}
	return bu, nil
}

// ShowExplorers displays explorers in the cell's output as one text/html
// output that keeps working in the notebook's HTML export, from a file,
// with no kernel:
//
//	kernelext.ShowExplorers(explore.Dirichlet(), explore.Pooling(), explore.Degree())
//
// The output carries the explorers' WebAssembly program (about 2 MB of
// HTML), so show all of a notebook's explorers in one call. Jupyter runs
// the program only in a trusted notebook; elsewhere the output shows a
// static picture of each explorer and a line saying why. Errors are shown
// in the cell and returned.
func ShowExplorers(explorers ...explore.Explorer) error {
	bu, err := Explorers(explorers...)
	if err != nil {
		gonbui.DisplayHTML(errorHTML(err))
		gonbui.Sync()
		return err
	}
	gonbui.DisplayHTML(bu.HTML())
	return flush()
}
