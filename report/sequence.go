package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// sequenceDiagram draws the deliveries of intents as a Mermaid
// sequenceDiagram: client → proxy → server → provider, with notes where a
// response went missing, a conflict or an in-progress answer came back.
func sequenceDiagram(intents []*model.Intent) string {
	var b strings.Builder
	b.WriteString("sequenceDiagram\n")
	used := map[model.Tier]bool{}
	var deliveries []*model.Delivery
	for _, in := range intents {
		for _, d := range in.Deliveries {
			deliveries = append(deliveries, d)
			for _, o := range d.Observations {
				used[o.Tier] = true
			}
		}
	}
	sort.SliceStable(deliveries, func(i, j int) bool { return deliveries[i].Start().Before(deliveries[j].Start()) })
	// A diagram of hundreds of deliveries helps nobody: draw the first and
	// last few and say how many were left out.
	const drawn = 12
	omitted := 0
	for _, in := range intents {
		omitted += in.Count() - len(in.Deliveries)
	}
	if len(deliveries) > drawn {
		omitted += len(deliveries) - drawn
		deliveries = append(deliveries[:drawn/2:drawn/2], deliveries[len(deliveries)-drawn/2:]...)
	}
	names := map[model.Tier]string{model.TierClient: "C", model.TierProxy: "P", model.TierServer: "S", model.TierWorker: "W", model.TierProvider: "X"}
	var tiers []model.Tier
	for t := model.TierClient; t <= model.TierProvider; t++ {
		if used[t] {
			tiers = append(tiers, t)
			fmt.Fprintf(&b, "    participant %s as %s\n", names[t], t)
		}
	}
	if len(tiers) == 0 {
		return b.String()
	}
	for n, d := range deliveries {
		if omitted > 0 && n == len(deliveries)/2 {
			fmt.Fprintf(&b, "    Note over %s: %d more deliveries not drawn\n", names[tiers[0]], omitted)
		}
		for _, e := range deliveryEvents(d, names, tiers) {
			b.WriteString(e.line)
		}
	}
	return b.String()
}

// event is one line of a diagram and when it happened.
type event struct {
	at   time.Time
	line string
}

// deliveryEvents are the messages and notes of one delivery in the order
// they happened: the request down the tiers, then each response back, a
// lost one marked where it was lost, and the effects, ordered by time
// across participants (a proxy that saw its client leave before the server
// answered is drawn so). Where the tiers' clocks contradict the path (a
// tier saw the request before the tier that sent it), they are skewed: the
// events keep path order and a note says so.
func deliveryEvents(d *model.Delivery, names map[model.Tier]string, tiers []model.Tier) []event {
	present := map[model.Tier]*model.Observation{}
	var path []model.Tier
	for _, o := range d.Observations {
		if _, ok := present[o.Tier]; !ok {
			present[o.Tier] = o
			path = append(path, o.Tier)
		}
	}
	var events []event
	add := func(at time.Time, format string, a ...any) {
		events = append(events, event{at, fmt.Sprintf("    "+format+"\n", a...)})
	}
	label := mermaid(fmt.Sprintf("%s %s key %s req %s", d.Method(), d.Route(), shorten(d.Key, 24), shorten(d.RequestID, 13)))
	if len(path) == 1 {
		add(present[path[0]].Time, "Note over %s: %s", names[path[0]], label)
	}
	skew := ""
	for i := 0; i+1 < len(path); i++ {
		from, to := present[path[i]], present[path[i+1]]
		add(from.Time, "%s->>%s: %s", names[path[i]], names[path[i+1]], label)
		if !from.Time.IsZero() && !to.Time.IsZero() && to.Time.Before(from.Time) && skew == "" {
			skew = fmt.Sprintf("%s logged it %s before %s sent it", path[i+1], from.Time.Sub(to.Time).Round(time.Millisecond), path[i])
		}
	}
	// Responses travel back; where one was lost, a note says so.
	var witnessed *model.Observation
	for i := len(path) - 1; i > 0; i-- {
		inner, outer := present[path[i]], present[path[i-1]]
		msg := mermaid(responseLabel(d, inner))
		if witness := lostLeg(inner, outer); witness != nil {
			at := endOf(witness)
			add(at, "%s--x%s: %s", names[path[i]], names[path[i-1]], msg)
			add(at, "Note over %s: %s", names[witness.Tier], mermaid(lostLabel(witness)))
			witnessed = witness
			break
		}
		add(responseTime(d, inner), "%s-->>%s: %s", names[path[i]], names[path[i-1]], msg)
	}
	// The first tier's caller giving up is a moment of its own, before or
	// after the effect, whoever else witnessed the loss.
	if c := present[path[0]]; c.Outcome.Lost() && c != witnessed {
		add(endOf(c), "Note over %s: %s", names[c.Tier], mermaid(lostLabel(c)))
	}
	for _, o := range d.Observations {
		if o.Effect {
			add(o.Time, "Note over %s: effect %s", names[o.Tier], mermaid(o.ResultID))
		}
	}
	if skew != "" {
		over := names[tiers[0]]
		if len(tiers) > 1 {
			over += "," + names[tiers[len(tiers)-1]]
		}
		return append([]event{{line: fmt.Sprintf("    Note over %s: clocks disagree (%s), drawn in path order\n", over, mermaid(skew))}}, events...)
	}
	// An event without a time keeps its place after the one before it.
	for i := range events {
		if events[i].at.IsZero() && i > 0 {
			events[i].at = events[i-1].at
		}
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].at.Before(events[j].at) })
	return events
}

// endOf is when a tier was done with the request. A client's or a proxy's
// line is one per request, stamped with its start and carrying its
// duration; a server's or worker's lines are events, placed where they
// stand on the timeline (a server's answer at its end: Observation.At).
func endOf(o *model.Observation) time.Time {
	if o.Tier <= model.TierProxy {
		return o.End()
	}
	return o.At()
}

// responseTime is when tier o answered: the last line of that tier with a
// status, else its end.
func responseTime(d *model.Delivery, o *model.Observation) time.Time {
	at := endOf(o)
	for _, x := range d.Observations {
		if x.Tier == o.Tier && x.Status > 0 {
			at = endOf(x)
		}
	}
	return at
}

func responseLabel(d *model.Delivery, o *model.Observation) string {
	var parts []string
	status := 0
	for _, x := range d.Observations {
		if x.Tier == o.Tier && x.Status > 0 {
			status = x.Status
		}
	}
	if status > 0 {
		parts = append(parts, fmt.Sprint(status))
	} else {
		parts = append(parts, "no response")
	}
	if o.Tier < model.TierServer {
		return strings.Join(parts, " ")
	}
	if dec, _ := d.Decision(); dec != "" {
		parts = append(parts, dec)
	}
	if r := d.ResultID(); r != "" {
		parts = append(parts, r)
	}
	return strings.Join(parts, " ")
}

func lostLabel(o *model.Observation) string {
	s := o.Outcome.String()
	if o.Duration > 0 {
		s += fmt.Sprintf(" after %s", o.Duration.Round(1e6))
	}
	if o.Detail != "" {
		s += " " + o.Detail
	}
	return s
}

// lostLeg says whether the response from inner to outer went missing, and
// returns the observation that witnessed it: a client that timed out or was
// reset, a proxy that saw its client leave (that leg is the proxy's
// downstream), or a proxy that gave up on its upstream.
func lostLeg(inner, outer *model.Observation) *model.Observation {
	switch {
	case inner.Outcome == model.OutcomeClientClosed:
		return inner
	case outer.Tier == model.TierClient && outer.Outcome.Lost():
		return outer
	case outer.Outcome == model.OutcomeUpstreamTimeout || outer.Outcome == model.OutcomeUpstreamReset:
		return outer
	}
	return nil
}
