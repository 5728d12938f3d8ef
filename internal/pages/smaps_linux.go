package pages

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// MappingFlags returns the VmFlags of every mapping of this process that
// overlaps [lo, hi), one line of flags each ("rd wr mr mw me ac hg"), as
// /proc/self/smaps lists them: how the kernel took the advice Huge and
// Advise give. A neighbour advised alike is one mapping with it.
func MappingFlags(lo, hi uintptr) ([]string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	inside := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rng, _, ok := strings.Cut(line, " "); ok && strings.Contains(rng, "-") && !strings.HasSuffix(rng, ":") {
			a, b, _ := strings.Cut(rng, "-")
			start, err1 := strconv.ParseUint(a, 16, 64)
			end, err2 := strconv.ParseUint(b, 16, 64)
			inside = err1 == nil && err2 == nil && uintptr(start) < hi && uintptr(end) > lo
			continue
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && inside {
			out = append(out, strings.TrimSpace(flags))
		}
	}
	return out, sc.Err()
}
