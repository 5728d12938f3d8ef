package model

import "fmt"

// Tier is the layer of the system that wrote a log line.
type Tier uint8

// The tiers, in the order a request crosses them.
const (
	TierUnknown Tier = iota
	TierClient
	TierProxy
	TierServer
	TierWorker
	TierProvider
)

var tierNames = [...]string{"unknown", "client", "proxy", "server", "worker", "provider"}

func (t Tier) String() string {
	if int(t) < len(tierNames) {
		return tierNames[t]
	}
	return "unknown"
}

// ParseTier reads a tier name; aliases that logging pipelines commonly use are
// accepted.
func ParseTier(s string) (Tier, error) {
	switch s {
	case "client", "browser", "har":
		return TierClient, nil
	case "proxy", "ingress", "lb", "gateway-proxy":
		return TierProxy, nil
	case "server", "app", "application", "api", "backend":
		return TierServer, nil
	case "worker", "activity", "job":
		return TierWorker, nil
	case "provider", "external", "upstream-provider":
		return TierProvider, nil
	}
	return TierUnknown, fmt.Errorf("unknown tier %q (want client, proxy, server, worker or provider)", s)
}

// MarshalText makes tiers render by name in JSON.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }
