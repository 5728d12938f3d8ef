//go:build race

package cmd

// raceEnabled: the generated workload is loaded in its own run, without
// the race detector (.ci/logstore.sh), since it multiplies the time.
const raceEnabled = true
