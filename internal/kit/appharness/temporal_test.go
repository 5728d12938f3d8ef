package appharness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// The Temporal capture: one workflow run in the Go SDK's test environment,
// logging through a JSON slog handler, with three activities:
//   - Charge fails on its first attempt and succeeds on the second, under
//     a key stable across attempts (workflow id + activity id); it runs
//     twice in the run (the order, then its shipping), so the SDK's two
//     "Activity error." lines name the same type and attempt;
//   - Email works past its StartToClose timeout and sends the email late.
//     The SDK logs "Activity complete after timeout."; the test
//     environment then fails the activity with its timeout and, unlike a
//     server, does not retry it, so the workflow goes on without it;
//   - Reserve makes its key from the attempt: its first attempt reserves
//     and then fails, and the retry reserves again under a new key.

// Attempt is what one activity attempt did, as the activities record it.
type Attempt struct {
	WorkflowID   string `json:"workflow_id"`
	RunID        string `json:"run_id"`
	ActivityID   string `json:"activity_id"`
	ActivityType string `json:"activity_type"`
	Attempt      int    `json:"attempt"`
	Key          string `json:"key"`
	ResultID     string `json:"result_id,omitempty"` // what it made or found
	Created      bool   `json:"created,omitempty"`   // it made the effect
	Failed       bool   `json:"failed,omitempty"`    // it returned an error
	Error        string `json:"error,omitempty"`     // the error it returned
	Late         bool   `json:"late,omitempty"`      // it returned after its timeout
}

// TemporalCapture is the Temporal run: the attempts and the worker log.
type TemporalCapture struct {
	Attempts []Attempt `json:"attempts"`
	Log      string    `json:"-"`
}

const (
	temporalLog   = "worker.jsonl"
	emailTimeout  = 300 * time.Millisecond
	emailLateWork = 700 * time.Millisecond
)

type activities struct {
	mu       sync.Mutex
	attempts []Attempt
	provider map[string]string // idempotency key → result id, as a provider dedupes
	n        int
}

func (a *activities) record(at Attempt) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.attempts = append(a.attempts, at)
}

// effect makes (or, for a key seen before, finds) the provider's record.
func (a *activities) effect(prefix, key string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if id, ok := a.provider[key]; ok {
		return id, false
	}
	a.n++
	id := fmt.Sprintf("%s_%d", prefix, a.n)
	a.provider[key] = id
	return id, true
}

func attemptOf(ctx context.Context) Attempt {
	in := activity.GetInfo(ctx)
	return Attempt{WorkflowID: in.WorkflowExecution.ID, RunID: in.WorkflowExecution.RunID, ActivityID: in.ActivityID,
		ActivityType: in.ActivityType.Name, Attempt: int(in.Attempt)}
}

func stableKey(at Attempt) string { return at.WorkflowID + "/" + at.ActivityID }

func (a *activities) logEffect(ctx context.Context, at Attempt, created bool, field, msg string) {
	l := activity.GetLogger(ctx)
	if created {
		l.Info(msg, "idempotency_key", at.Key, field, at.ResultID)
	} else {
		l.Info("already done", "idempotency_key", at.Key, field, at.ResultID, "decision", "replay")
	}
}

// Charge fails on attempt 1, before any effect, then charges.
func (a *activities) Charge(ctx context.Context, order string) (string, error) {
	at := attemptOf(ctx)
	at.Key = stableKey(at)
	activity.GetLogger(ctx).Info("charging", "idempotency_key", at.Key, "order", order)
	if at.Attempt == 1 {
		err := fmt.Errorf("card processor unavailable for %s", order)
		at.Failed, at.Error = true, err.Error()
		a.record(at)
		return "", err
	}
	id, created := a.effect("ch", at.Key)
	at.ResultID, at.Created = id, created
	a.logEffect(ctx, at, created, "charge_id", "charge captured")
	a.record(at)
	return id, nil
}

// Email works past its timeout on attempt 1, ignoring the cancelled
// context as code that blocks on I/O does, and sends the email late.
func (a *activities) Email(ctx context.Context, order string) (string, error) {
	at := attemptOf(ctx)
	at.Key = stableKey(at)
	activity.GetLogger(ctx).Info("sending email", "idempotency_key", at.Key, "order", order)
	if at.Attempt == 1 {
		time.Sleep(emailLateWork)
		at.Late = true
	}
	id, created := a.effect("em", at.Key)
	at.ResultID, at.Created = id, created
	a.logEffect(ctx, at, created, "result_id", "email sent")
	a.record(at)
	return id, nil
}

// Reserve keys the reservation by the attempt (the bug): attempt 1
// reserves, then fails; attempt 2 reserves again.
func (a *activities) Reserve(ctx context.Context, order string) (string, error) {
	at := attemptOf(ctx)
	at.Key = fmt.Sprintf("%s/%s/attempt-%d", at.WorkflowID, at.ActivityID, at.Attempt)
	activity.GetLogger(ctx).Info("reserving stock", "idempotency_key", at.Key, "order", order)
	id, created := a.effect("rs", at.Key)
	at.ResultID, at.Created = id, created
	a.logEffect(ctx, at, created, "reservation_id", "stock reserved")
	if at.Attempt == 1 {
		err := errors.New("inventory service: connection reset")
		at.Failed, at.Error = true, err.Error()
		a.record(at)
		return "", err
	}
	a.record(at)
	return id, nil
}

func orderWorkflow(ctx workflow.Context, order string) error {
	retry := &temporal.RetryPolicy{InitialInterval: 10 * time.Millisecond, BackoffCoefficient: 1, MaximumAttempts: 3}
	// The test environment times activities by the wall clock: a roomy
	// timeout for the ones that must not time out on a loaded machine.
	roomy := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: retry})
	tight := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: emailTimeout, RetryPolicy: retry})
	var a *activities
	var id string
	for _, what := range []string{order, order + "/shipping"} {
		if err := workflow.ExecuteActivity(roomy, a.Charge, what).Get(ctx, &id); err != nil {
			return err
		}
	}
	if err := workflow.ExecuteActivity(tight, a.Email, order).Get(ctx, &id); err != nil {
		// The email is a courtesy: the order goes on without it.
		workflow.GetLogger(ctx).Warn("confirmation email failed", "Error", err)
	}
	return workflow.ExecuteActivity(roomy, a.Reserve, order).Get(ctx, &id)
}

// runTemporal runs the workflow in the SDK's test environment.
func runTemporal(t *testing.T) *TemporalCapture {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), temporalLog)
	f := openLog(t, logPath)
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewJSONHandler(f, nil))))
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	a := &activities{provider: map[string]string{}}
	env.RegisterWorkflow(orderWorkflow)
	env.RegisterActivity(a)
	env.ExecuteWorkflow(orderWorkflow, "order-4711")
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return &TemporalCapture{Attempts: a.attempts, Log: logPath}
}

// TestTemporal runs the workflow and checks what idem reads from the
// worker log.
func TestTemporal(t *testing.T) {
	c := runTemporal(t)
	folder := capture.Folder{Logs: map[string]string{temporalLog: c.Log}, RecordName: captureFile, Record: c}
	folder.Keep(t, filepath.Join(fixturesDir, "temporal"), *update, func(t *testing.T, dir string) {
		checkTemporal(t, loadTemporalFrom(t, dir))
	})
}

// TestTemporalFixture checks the committed Temporal capture.
func TestTemporalFixture(t *testing.T) {
	if *update {
		t.Skip("rewriting the fixtures")
	}
	checkTemporal(t, loadTemporal(t))
}

// loadTemporal reads the committed Temporal capture.
func loadTemporal(t *testing.T) *TemporalCapture {
	t.Helper()
	dir := filepath.Join(fixturesDir, "temporal")
	capture.Recorded(t, dir, captureFile, "go test ./internal/kit/appharness -run TestTemporal -update")
	return loadTemporalFrom(t, dir)
}

// loadTemporalFrom reads a Temporal capture folder.
func loadTemporalFrom(t *testing.T, dir string) *TemporalCapture {
	t.Helper()
	var c TemporalCapture
	capture.ReadJSON(t, filepath.Join(dir, captureFile), &c)
	c.Log = filepath.Join(dir, temporalLog)
	return &c
}

// sdkLines finds the SDK's own line msg for one attempt: it names the
// workflow, run, activity type and attempt, but not the activity id, so
// the error the attempt returned tells two activities of one type apart.
func sdkLines(r *capture.Reading, path, msg string, at Attempt) []capture.Line {
	return r.Find(path, []string{"msg"}, msg, func(j gjson.Result) bool {
		return j.Get("WorkflowID").String() == at.WorkflowID &&
			j.Get("ActivityType").String() == at.ActivityType && int(j.Get("Attempt").Int()) == at.Attempt &&
			(at.Error == "" || j.Get("Error").String() == at.Error)
	})
}

func checkTemporal(t testing.TB, c *TemporalCapture) {
	t.Helper()
	// What the harness must have made happen before idem is asked.
	byID := map[string][]Attempt{}
	var order []string
	for _, at := range c.Attempts {
		if _, ok := byID[at.ActivityID]; !ok {
			order = append(order, at.ActivityID)
		}
		byID[at.ActivityID] = append(byID[at.ActivityID], at)
	}
	if len(order) != 4 {
		t.Fatalf("activities %v, want two charges, an email and a reservation", order)
	}
	charge, shipping, email, reserve := byID[order[0]], byID[order[1]], byID[order[2]], byID[order[3]]
	for _, ch := range [][]Attempt{charge, shipping} {
		if len(ch) != 2 || ch[0].ActivityType != "Charge" || !ch[0].Failed || !ch[1].Created {
			t.Fatalf("charge attempts %+v, want a failure then a charge", ch)
		}
	}
	if len(email) != 1 || !email[0].Late || !email[0].Created {
		t.Fatalf("email attempts %+v, want one late send", email)
	}
	if len(reserve) != 2 || !reserve[0].Created || !reserve[1].Created || reserve[0].Key == reserve[1].Key {
		t.Fatalf("reserve attempts %+v, want two reservations under two keys", reserve)
	}

	f := knownGaps.Facts(t, "temporal")
	r := capture.MustRead(t, c.Log)
	dels := r.Deliveries(keysOf(c.Attempts))
	in := r.Set.Inputs[0]
	f.Check("skipped", in.Skipped == 0, "%d lines skipped: %v", in.Skipped, in.SkipSamples)
	for _, at := range c.Attempts {
		rid := "activity:" + at.WorkflowID + "/" + at.ActivityID + "#" + fmt.Sprint(at.Attempt)
		name := fmt.Sprintf("%s attempt %d", at.ActivityType, at.Attempt)
		// The activity's own lines, through activity.GetLogger: every one
		// names the attempt, and they make its delivery.
		own := r.Find(c.Log, []string{"idempotency_key"}, at.Key, func(j gjson.Result) bool {
			return j.Get("ActivityID").String() == at.ActivityID && int(j.Get("Attempt").Int()) == at.Attempt
		})
		if len(own) == 0 {
			t.Fatalf("%s: no activity line in %s", name, c.Log)
		}
		for _, l := range own {
			o := r.Of(l.Src)
			where := fmt.Sprintf("%s, %s: %s", name, l.Src, l.Text)
			f.Check("activity-read", o != nil, "not read; %s", where)
			if o == nil {
				continue
			}
			f.Check("tier", o.Tier == model.TierWorker, "tier %s, want worker; %s", o.Tier, where)
			f.Check("format", o.Format == "temporal", "format %q, want temporal; %s", o.Format, where)
			f.Check("ids", o.WorkflowID() == at.WorkflowID && o.RunID() == at.RunID && o.ActivityID() == at.ActivityID &&
				o.ActivityType() == at.ActivityType && o.Attempt == at.Attempt,
				"workflow %q run %q activity %q type %q attempt %d, want %q %q %q %q %d; %s",
				o.WorkflowID(), o.RunID(), o.ActivityID(), o.ActivityType(), o.Attempt,
				at.WorkflowID, at.RunID, at.ActivityID, at.ActivityType, at.Attempt, where)
			f.Check("key", o.Key == at.Key, "key %q, want %q; %s", o.Key, at.Key, where)
			isEffect := gjson.Get(l.Text, "msg").String() != "already done" && at.ResultID != "" &&
				strings.Contains(l.Text, at.ResultID)
			if isEffect {
				f.Check("effect-"+strings.ToLower(at.ActivityType), o.Effect && o.ResultID == at.ResultID,
					"effect %v result %q, want an effect with result %q; %s", o.Effect, o.ResultID, at.ResultID, where)
			} else {
				f.Check("no-effect", !o.Effect, "read as an effect (result %q); %s", o.ResultID, where)
			}
		}
		del := dels[rid]
		f.Check("delivery", del != nil, "%s: no delivery %s (deliveries: %v)", name, rid, capture.IDs(dels))

		// The SDK's own lines about the attempt: its error, or its late
		// completion, belong to the attempt's delivery.
		var sdk []capture.Line
		switch {
		case at.Late:
			sdk = sdkLines(r, c.Log, "Activity complete after timeout.", at)
		case at.Failed:
			sdk = sdkLines(r, c.Log, "Activity error.", at)
		}
		if (at.Late || at.Failed) && len(sdk) != 1 {
			t.Fatalf("%s: %d SDK lines about it, want 1", name, len(sdk))
		}
		for _, l := range sdk {
			o := r.Of(l.Src)
			where := fmt.Sprintf("%s, %s: %s", name, l.Src, l.Text)
			f.Check("sdk-read", o != nil, "the SDK's line is not read; %s", where)
			if o == nil {
				continue
			}
			f.Check("sdk-attempt", o.ActivityType() == at.ActivityType && o.Attempt == at.Attempt,
				"type %q attempt %d, want %q %d; %s", o.ActivityType(), o.Attempt, at.ActivityType, at.Attempt, where)
			if at.Late {
				f.Check("late", o.Detail == "completed after timeout", "detail %q, want the late completion; %s", o.Detail, where)
				// The SDK logs the attempt's output as Result: the id it made,
				// never the activity's input.
				f.Check("late-result", o.ResultID == "" || o.ResultID == at.ResultID,
					"result %q, want %q or none; %s", o.ResultID, at.ResultID, where)
			}
			f.Check("sdk-join", del != nil && slices.Contains(capture.Sources(del), l.Src),
				"the SDK's line is in no delivery of the attempt %s; %s", rid, where)
		}
	}

	// The intents: a stable key holds every attempt and one effect; the
	// attempt-scoped key splits one logical execution into two intents
	// with an effect each.
	for _, group := range [][]Attempt{charge, shipping, email} {
		k := group[0].Key
		in := f.OneIntent("intent", r.Set, k)
		if in == nil {
			continue
		}
		f.Check("intent", len(in.Deliveries) == len(group), "key %s: %d deliveries, want %d", k, len(in.Deliveries), len(group))
		made := ""
		for _, at := range group {
			if at.Created {
				made = at.ResultID
			}
		}
		f.Check("intent-effect", capture.EffectIDs(in.Effects()) == made,
			"key %s: effects [%s], want [%s]", k, capture.EffectIDs(in.Effects()), made)
	}
	for _, at := range reserve {
		if in := f.OneIntent("intent", r.Set, at.Key); in != nil {
			f.Check("intent-effect-reserve", capture.EffectIDs(in.Effects()) == at.ResultID,
				"key %s: effects [%s], want [%s]", at.Key, capture.EffectIDs(in.Effects()), at.ResultID)
		}
	}

	// The diagnosis: the key that changes with the attempt is found; the
	// stable keys are not blamed.
	res := diagnose.Run(r.Set, diagnose.DefaultOptions())
	var scoped []string
	for _, fd := range res.Findings {
		if fd.Rule.ID == "attempt-scoped-key" {
			b, _ := json.Marshal(fd.Keys)
			scoped = append(scoped, string(b))
		}
	}
	f.Check("attempt-scoped-key", len(scoped) == 1 && strings.Contains(scoped[0], reserve[0].Key) && strings.Contains(scoped[0], reserve[1].Key),
		"attempt-scoped-key findings %v, want one naming %s and %s", scoped, reserve[0].Key, reserve[1].Key)
}

func keysOf(ats []Attempt) []string {
	var out []string
	for _, at := range ats {
		if !slices.Contains(out, at.Key) {
			out = append(out, at.Key)
		}
	}
	return out
}
