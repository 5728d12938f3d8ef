package report

import (
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// render styles a piece of text; nil leaves it plain.
type render func(...string) string

// cell is one table cell: plain (already escaped) text and how to style it.
// Widths are measured on the plain text, so styling never breaks alignment.
type cell struct {
	text  string
	style render
}

func plain(s string) cell { return cell{text: s} }

// grid is rows of cells under named columns, laid out for a width: as an
// aligned table when it fits, else as one "name: value" block per row. A
// cell is never broken inside a word, so ids and paths stay whole and can
// be copied.
type grid struct {
	names []string
	// header prints the column names above the table.
	header bool
	// right aligns the numeric columns.
	right map[int]bool
	// flex is the column that may wrap at spaces to fit (-1: none).
	flex int
	rows [][]cell
}

func newGrid(names ...string) *grid { return &grid{names: names, right: map[int]bool{}, flex: -1} }

func (g *grid) add(cells ...cell) { g.rows = append(g.rows, cells) }

func textWidth(s string) int { return lipgloss.Width(s) }

// widths are the natural widths of the columns, and whether a table of
// them, indented by indent, fits in width (the flex column narrowed to its
// longest word if need be; its width is then returned narrowed).
func (g *grid) widths(indent, width int) ([]int, bool) {
	w := make([]int, len(g.names))
	for i, n := range g.names {
		if g.header {
			w[i] = textWidth(n)
		}
	}
	for _, row := range g.rows {
		for i, c := range row {
			w[i] = max(w[i], textWidth(c.text))
		}
	}
	total := indent
	for i, x := range w {
		total += x
		if i > 0 {
			total += 2
		}
	}
	if total <= width {
		return w, true
	}
	if g.flex < 0 {
		return w, false
	}
	longest := 0
	if g.header {
		longest = textWidth(g.names[g.flex])
	}
	for _, row := range g.rows {
		for _, word := range strings.Fields(row[g.flex].text) {
			longest = max(longest, textWidth(word))
		}
	}
	narrowed := w[g.flex] - (total - width)
	if narrowed < longest || narrowed < 12 {
		return w, false
	}
	w[g.flex] = narrowed
	return w, true
}

// write lays the grid out at indent for width columns.
func (g *grid) write(out io.Writer, st styles, indent, width int) {
	w, fits := g.widths(indent, width)
	if !fits {
		g.stacked(out, st, indent, width)
		return
	}
	g.writeWidths(out, st, indent, w)
}

// writeWidths writes the grid as a table of columns w wide.
func (g *grid) writeWidths(out io.Writer, st styles, indent int, w []int) {
	pad := strings.Repeat(" ", indent)
	line := func(cells []cell) {
		cols := make([][]string, len(cells))
		height := 1
		for i, c := range cells {
			cols[i] = []string{c.text}
			if i == g.flex && textWidth(c.text) > w[i] {
				cols[i] = wrapWords(c.text, w[i])
			}
			height = max(height, len(cols[i]))
		}
		for l := 0; l < height; l++ {
			var b strings.Builder
			b.WriteString(pad)
			last := len(cells) - 1
			for last > 0 && l >= len(cols[last]) {
				last-- // no trailing blanks on continuation lines
			}
			for i := 0; i <= last; i++ {
				text := ""
				if l < len(cols[i]) {
					text = cols[i][l]
				}
				gap := strings.Repeat(" ", max(0, w[i]-textWidth(text)))
				styled := text
				if cells[i].style != nil && text != "" {
					styled = cells[i].style(text)
				}
				switch {
				case g.right[i]:
					b.WriteString(gap + styled)
				case i == last:
					b.WriteString(styled)
				default:
					b.WriteString(styled + gap)
				}
				if i < last {
					b.WriteString("  ")
				}
			}
			b.WriteByte('\n')
			io.WriteString(out, b.String())
		}
	}
	if g.header {
		var head []cell
		for _, n := range g.names {
			head = append(head, cell{text: n, style: st.Faint.Render})
		}
		line(head)
	}
	for _, row := range g.rows {
		line(row)
	}
}

// stacked writes each row as a block of "name: value" lines; a value too
// long for the rest of its line goes whole on the next line, further in.
func (g *grid) stacked(out io.Writer, st styles, indent, width int) {
	pad := strings.Repeat(" ", indent)
	keyWidth := 0
	for _, n := range g.names {
		keyWidth = max(keyWidth, textWidth(n)+1)
	}
	for _, row := range g.rows {
		for i, c := range row {
			if c.text == "" {
				continue
			}
			lead := "  "
			if i == 0 {
				lead = "- "
			}
			key := g.names[i] + ":"
			prefix := pad + lead + st.Faint.Render(key) + strings.Repeat(" ", keyWidth-textWidth(key)+1)
			room := width - indent - 2 - keyWidth - 1
			styled := func(s string) string {
				if c.style != nil {
					return c.style(s)
				}
				return s
			}
			if textWidth(c.text) <= room {
				io.WriteString(out, prefix+styled(c.text)+"\n")
				continue
			}
			words := strings.Fields(c.text)
			if len(words) > 1 && longestWord(words) <= room {
				for j, l := range wrapWords(c.text, room) {
					if j > 0 {
						prefix = pad + strings.Repeat(" ", 2+keyWidth+1)
					}
					io.WriteString(out, prefix+styled(l)+"\n")
				}
				continue
			}
			io.WriteString(out, pad+lead+st.Faint.Render(key)+"\n")
			inner := pad + "    "
			for _, l := range wrapWords(c.text, width-indent-4) {
				io.WriteString(out, inner+styled(l)+"\n")
			}
		}
	}
}

func longestWord(words []string) int {
	n := 0
	for _, w := range words {
		n = max(n, textWidth(w))
	}
	return n
}

// wrapWords breaks s at spaces into lines of at most width columns; a word
// longer than width gets a line of its own and is never split.
func wrapWords(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	curWidth := 0
	for _, word := range strings.Fields(s) {
		ww := textWidth(word)
		if curWidth > 0 && curWidth+1+ww > width {
			lines = append(lines, cur.String())
			cur.Reset()
			curWidth = 0
		}
		if curWidth > 0 {
			cur.WriteByte(' ')
			curWidth++
		}
		cur.WriteString(word)
		curWidth += ww
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
