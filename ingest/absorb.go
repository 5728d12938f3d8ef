// What a batch's reading adds to its input's summary: tiers and formats
// counted, lines set aside with file:line, and the dominant format and
// tier settled at the end.

package ingest

import (
	"bytes"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/model"
)

// observations to the consumer.
func (in *reading) absorb(res *formats.Result, tb *model.Batch) {
	if in.callers.Settle(res) {
		// A caller's lines, read as the client's once its process's
		// lines said so: prepared again for what they now are.
		in.c.Prepare(tb)
	}
	// Tiers are counted in runs: one map update a run, not a line.
	run, count := model.Tier(0), 0
	for i := range res.Obs {
		if t := res.Obs[i].Tier; t != run {
			if count > 0 {
				in.tiers[run] += count
			}
			run, count = t, 0
		}
		count++
	}
	if count > 0 {
		in.tiers[run] += count
	}
	for t, n := range res.Assumed {
		in.assumed[t] += n
	}
	in.c.Consume(tb)
	in.Observations += len(res.Obs)
	in.Ignored += res.Ignored
	in.Repaired += res.Repaired
	in.Skipped += len(res.Skips)
	sort.SliceStable(res.Skips, func(i, j int) bool { return res.Skips[i].Source.Line < res.Skips[j].Source.Line })
	for _, s := range res.Skips {
		if len(in.SkipSamples) < in.opts.MaxSkipSamples {
			in.SkipSamples = append(in.SkipSamples, s)
		}
	}
	if res.RequestLines > 0 {
		if in.RequestLines == nil {
			in.RequestLines = &model.RequestLines{}
		}
		in.RequestLines.Lines += res.RequestLines
		if in.RequestLines.Pattern == "" { // batches are absorbed in order: the first
			in.RequestLines.First, in.RequestLines.Pattern = res.RequestFirst, res.RequestPattern
		}
	}
	for k, v := range res.FormatCounts() {
		in.Formats[k] += v
	}
	for k, v := range res.Secrets {
		in.Secrets[k] += v
	}
	for path, vals := range res.Candidates {
		if in.Candidates == nil {
			in.Candidates = map[string][]string{}
		}
		have := in.Candidates[path]
		for _, v := range vals {
			if len(have) < 32 && !slices.Contains(have, v) {
				have = append(have, v)
			}
		}
		if len(have) > 0 && (len(in.Candidates) < 256 || in.Candidates[path] != nil) {
			in.Candidates[path] = have
		}
	}
	for k, v := range res.Uses {
		if in.uses == nil {
			in.uses = map[model.FieldUse]int{}
		}
		in.uses[k] += v
	}
}

// repairReason says what was done to a line read after a repair.
const repairReason = "raw control bytes inside a JSON string (RFC 8259 wants them escaped); read as if escaped"

// absorbSamples keeps the first skipped line's text and the first
// repaired lines, in line order (before the batch they come from is
// absorbed).
func (in *reading) absorbSamples(first *model.Skip, repairs []model.Skip) {
	if first != nil && in.firstSkip == nil {
		in.firstSkip = first
	}
	for _, r := range repairs {
		if len(in.RepairSamples) < in.opts.MaxSkipSamples {
			in.RepairSamples = append(in.RepairSamples, r)
		}
	}
}

// excerptBytes bounds the text kept of an unrecognised line.
const excerptBytes = 160

// excerpt copies the start of a line, without its line end.
func excerpt(line []byte) string {
	line = bytes.TrimRight(line, "\r\n")
	if len(line) > excerptBytes {
		line = line[:excerptBytes]
		// Not half a word: half a secret would escape redaction.
		if i := bytes.LastIndexAny(line, " \t,;&\"'"); i >= excerptBytes/2 {
			line = line[:i]
		}
		// Not half a character.
		for i := 0; i < utf8.UTFMax-1 && len(line) > 0; i++ {
			if r, n := utf8.DecodeLastRune(line); r != utf8.RuneError || n != 1 {
				break
			}
			line = line[:len(line)-1]
		}
	}
	return string(line)
}

// finish settles the input's dominant format and tier, and whether none
// of its lines was recognised.
func (in *reading) finish() {
	if in.Observations == 0 && in.Ignored == 0 && in.Skipped > 0 && len(in.SkipSamples) > 0 {
		u := in.SkipSamples[0]
		if f := in.firstSkip; f != nil && f.Source == u.Source {
			u.Text = f.Text
		}
		in.Unrecognised = &u
	}
	type kv struct {
		k string
		v int
	}
	var fs []kv
	for k, v := range in.Formats {
		fs = append(fs, kv{k, v})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].v > fs[j].v || fs[i].v == fs[j].v && fs[i].k < fs[j].k })
	switch {
	case len(fs) == 0:
		in.Format = "none"
	case len(fs) == 1 || fs[0].v*10 >= in.Lines*9:
		in.Format = fs[0].k
	default:
		in.Format = "mixed"
	}
	best, n := model.TierUnknown, 0
	for t, c := range in.tiers {
		if c > n || c == n && t < best {
			best, n = t, c
		}
	}
	in.Tier = best.String()
	// A tier no line of the input confirmed is its format's default.
	in.TierAssumed = n > 0 && in.assumed[best] >= n
	for u, n := range in.uses {
		u.Lines = n
		in.Fields = append(in.Fields, u)
	}
	sort.Slice(in.Fields, func(i, j int) bool {
		a, b := in.Fields[i], in.Fields[j]
		if a.Field != b.Field {
			return fieldOrder(a.Field) < fieldOrder(b.Field)
		}
		return a.Lines > b.Lines || a.Lines == b.Lines && a.Path < b.Path
	})
}

// fieldOrder lists the explained fields in the order they matter most.
func fieldOrder(f string) int {
	for i, name := range []string{"request_id", "key", "key_hash", "method", "route", "status", "time", "duration",
		"fingerprint", "result_id", "effect", "decision"} {
		if f == name {
			return i
		}
	}
	return 99
}
