package report

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/idem-cli/idem/model"
)

// tierWord is the tier an input's lines were taken for, "(assumed)"
// where it is their format's default and no line said whose they were.
func tierWord(in *model.Input) string {
	if in.TierAssumed {
		return cmp.Or(in.Tier, "unknown") + " (assumed)"
	}
	return cmp.Or(in.Tier, "unknown")
}

// inputsText lists each input as it was read: its format, the tier its
// lines were taken for (what --tier FILE=TIER or the config corrects),
// and how many lines were read and skipped, before any finding rests on
// them.
func inputsText(w io.Writer, st styles, inputs []*model.Input, width int) {
	if len(inputs) == 0 {
		return
	}
	rows := make([][4]string, len(inputs))
	var wide [4]int
	for i, in := range inputs {
		rows[i] = [4]string{Safe(in.Path), Safe(cmp.Or(in.Format, "-")), tierWord(in),
			fmt.Sprintf("%s, %d skipped", Count(in.Lines, "line", "lines"), in.Skipped)}
		for c, s := range rows[i] {
			wide[c] = max(wide[c], utf8.RuneCountInString(s))
		}
	}
	fmt.Fprintln(w, st.Faint.Render("inputs:"))
	// One row each where they fit; else the path on its line, what was
	// read of it below.
	oneLine := 2+wide[0]+2+wide[1]+2+wide[2]+2+wide[3] <= width
	for _, r := range rows {
		if oneLine {
			fmt.Fprintf(w, "  %s  %s  %s  %s\n", pad(r[0], wide[0]), pad(r[1], wide[1]), pad(r[2], wide[2]), r[3])
			continue
		}
		fmt.Fprintf(w, "  %s\n    %s  %s  %s\n", r[0], pad(r[1], wide[1]), pad(r[2], wide[2]), r[3])
	}
}

// pad fills s with spaces to n runes.
func pad(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
}

// tripKey names a delivery for idem trace: its request id and where its
// first line is, since two trips may go by one id.
func tripKey(d *model.Delivery) string {
	if e := d.Edge(); e != nil {
		return d.RequestID + "\x00" + e.Source.String()
	}
	return d.RequestID
}
