package main

import (
	"github.com/vbauerster/cupwriter"
	"github.com/vbauerster/mpb/v8"
)

// newProgress is the progress container of a terminal run, on stderr.
func newProgress(e *env, width int) *mpb.Progress {
	return mpb.NewWithContext(e.ctx,
		mpb.WithConsoleWriter(sizedConsole{cupwriter.New(e.stderr, false)}),
		mpb.WithWidth(width),
	)
}

// sizedConsole is mpb's terminal writer, but a terminal that reports no size
// (a pty nobody sized: script, some CI runners, serial consoles) counts as
// 80x24 instead of 0x0, where mpb would draw nothing at all.
type sizedConsole struct{ *cupwriter.Writer }

func (c sizedConsole) GetTermSize() (width, height int, err error) {
	width, height, err = c.Writer.GetTermSize()
	if err != nil || width <= 0 || height <= 0 {
		return 80, 24, nil
	}
	return width, height, nil
}
