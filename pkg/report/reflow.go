package report

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// The report's line limits, in characters: a prose line (a paragraph or
// a list item) at most MaxProseLine, any line (a table row) at most
// MaxLine.
const (
	MaxProseLine = 600
	MaxLine      = 1000
)

var (
	listMarkerRE = regexp.MustCompile(`^ {0,3}(?:[-*+]|[0-9]+[.)]) +`)
	orderedRE    = regexp.MustCompile(`^[0-9]+[.)](?: |$)`)
)

// Reflow breaks every prose line of the Markdown md longer than
// MaxProseLine into lines of at most MaxProseLine characters where it
// can, which renders the same: a line break inside a paragraph is a
// space. A long line is broken after each sentence first (but one
// shorter than minPiece characters), then a
// sentence still too long after its clauses (at "; ", ": " and ", "),
// then at spaces; never inside a code span or a link's destination, never
// where a line would end in a backslash (a hard break) or begin like a
// block (a list item, heading, quote, table row, fence, HTML or a
// heading's underline). A list item's continuation lines are indented
// under its text. Tables, headings, fenced and indented code and HTML
// are left as they are.
func Reflow(md string) string {
	lines := strings.Split(md, "\n")
	var out []string
	fence := ""
	for _, l := range lines {
		t := strings.TrimLeft(l, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			out = append(out, l)
			continue
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			out = append(out, l)
			continue
		}
		if utf8.RuneCountInString(l) <= MaxProseLine || !prose(l) {
			out = append(out, l)
			continue
		}
		indent := ""
		if m := listMarkerRE.FindString(l); m != "" {
			indent = strings.Repeat(" ", len(m))
		}
		for i, piece := range breakLine(l, len(indent)) {
			if i > 0 {
				piece = indent + piece
			}
			out = append(out, piece)
		}
	}
	return strings.Join(out, "\n")
}

// prose reports whether l is a line of a paragraph or list item.
func prose(l string) bool {
	if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
		return false // indented code, or a deeper list's continuation
	}
	t := strings.TrimLeft(l, " ")
	for _, p := range []string{"|", "#", ">", "<"} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return t != ""
}

// blockStart reports whether a line beginning with t would start a block
// instead of continuing a paragraph.
func blockStart(t string) bool {
	for _, p := range []string{"- ", "* ", "+ ", "#", ">", "|", "=", "<", "```", "~~~", "---", "***", "___"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return t == "-" || t == "*" || t == "+" || orderedRE.MatchString(t)
}

// minPiece is the shortest sentence that Reflow puts on a line of its
// own: a shorter one ("*Rule.*") stays with the next.
const minPiece = 40

// Break ranks: a sentence's end, a clause's, any space.
const (
	breakSpace = iota + 1
	breakClause
	breakSentence
)

// breakLine splits l at spaces into pieces of at most MaxProseLine
// characters (indent more on every piece after the first) as Reflow
// describes; a stretch with no allowed break stays whole.
func breakLine(l string, indent int) []string {
	// rank[i] > 0 marks the space at byte i as a break.
	rank := map[int]int{}
	var spaces []int
	code := 0     // length of the backtick run that opened a code span
	dest := false // inside a link's destination
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == '`':
			n := 1
			for i+n < len(l) && l[i+n] == '`' {
				n++
			}
			if code == 0 {
				code = n
			} else if code == n {
				code = 0
			}
			i += n - 1
			continue
		case code > 0:
			continue
		case c == '(' && i > 0 && l[i-1] == ']':
			dest = true
		case c == ')' && dest:
			dest = false
		case c == ' ' && !dest && i > 0 && l[i-1] != ' ' && l[i-1] != '\\' && i+1 < len(l) && l[i+1] != ' ':
			if blockStart(l[i+1:]) {
				continue
			}
			r := breakSpace
			prev := strings.TrimRight(l[:i], "*_)\"'”’")
			switch {
			case strings.HasSuffix(prev, ".") || strings.HasSuffix(prev, "?") || strings.HasSuffix(prev, "!"):
				r = breakSentence
			case strings.HasSuffix(l[:i], ";") || strings.HasSuffix(l[:i], ":") || strings.HasSuffix(l[:i], ","):
				r = breakClause
			}
			rank[i] = r
			spaces = append(spaces, i)
		}
	}
	// One sentence a line, then each piece too long at its clauses, then
	// at its spaces.
	var cuts []int
	last := 0
	for _, i := range spaces {
		if rank[i] == breakSentence && utf8.RuneCountInString(l[last:i]) >= minPiece {
			cuts = append(cuts, i)
			last = i + 1
		}
	}
	for _, r := range []int{breakClause, breakSpace} {
		cuts = refine(l, cuts, spaces, rank, r, indent)
	}
	var out []string
	start := 0
	for _, c := range cuts {
		out = append(out, l[start:c])
		start = c + 1
	}
	return append(out, l[start:])
}

// refine adds to the sorted cuts of l, within each piece longer than
// MaxProseLine, the breaks of rank at least r that pack it greedily into
// pieces of at most MaxProseLine characters (indent more after the
// first); where no such break fits, the first one beyond.
func refine(l string, cuts, spaces []int, rank map[int]int, r, indent int) []int {
	var out []int
	start := 0
	bounds := append(append([]int(nil), cuts...), len(l))
	for _, end := range bounds {
		width := func(a, b int) int {
			w := utf8.RuneCountInString(l[a:b])
			if a > 0 {
				w += indent
			}
			return w
		}
		for width(start, end) > MaxProseLine {
			best := -1
			for _, s := range spaces {
				if s > start && s < end && rank[s] >= r && width(start, s) <= MaxProseLine {
					best = s
				}
			}
			if best < 0 {
				// Nothing fits: the first break of the rank beyond the
				// limit shortens the overlong stretch as much as it can.
				for _, s := range spaces {
					if s > start && s < end && rank[s] >= r {
						best = s
						break
					}
				}
			}
			if best < 0 {
				break
			}
			out = append(out, best)
			start = best + 1
		}
		if end < len(l) {
			out = append(out, end)
		}
		start = end + 1
	}
	return out
}
