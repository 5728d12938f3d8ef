// Package gateway is a reference HTTP server for the Idempotency-Key
// contract: an atomic reservation per key, a fingerprint of the payload, the
// effect and the key record committed together, and replays of the stored
// status, body and result id. Fault modes break the contract on purpose,
// one row of the diagnosis table each, so that idem's rules and replay
// probes can be tried and tested against real behaviour. It logs in idem's
// canonical schema, with only safe fields.
package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idem-cli/idem/contract"
)

// Profile is the contract variant a gateway serves.
type Profile = contract.Profile

// Profiles are the contract variants, by name.
var Profiles = contract.Profiles

// ProfileNames lists the profiles in a stable order.
func ProfileNames() []string { return contract.Names() }

// Options configure a gateway.
type Options struct {
	Profile Profile
	TTL     time.Duration // key retention; 0 keeps keys forever
	Delay   time.Duration // a slow handler
	// Lease is how long a reservation's owner is trusted to be alive
	// (default 30s). Another process may recover the reservation after it.
	Lease  time.Duration
	Faults Faults
	Log    io.Writer
	Now    func() time.Time
	// NonAtomicWindow is the gap between check and insert in --non-atomic.
	NonAtomicWindow time.Duration
	// Client calls the external provider; it never follows redirects.
	Client *http.Client
	// ExternalTimeout bounds a provider call when Client is nil (default
	// DefaultExternalTimeout).
	ExternalTimeout time.Duration
}

// DefaultLease is the reservation lease when Options.Lease is 0.
const DefaultLease = 30 * time.Second

// server implements the contract over a Store.
type server struct {
	opts     Options
	store    store
	log      *logger
	instance string // this process's share of every owner it writes
	// deliveries numbers this process's deliveries, for unique owners.
	deliveries atomic.Uint64

	mu        sync.Mutex
	crashed   map[string]bool // keys whose external call already "crashed"
	live      map[string]bool // owners whose delivery is running here
	lastSweep time.Time
}

// New returns a gateway over store.
func New(opts Options, store store) *server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Profile.Name == "" {
		opts.Profile = Profiles["article"]
	}
	if opts.NonAtomicWindow == 0 {
		opts.NonAtomicWindow = 50 * time.Millisecond
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	opts.Client = providerClient(opts.Client, opts.ExternalTimeout)
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &server{opts: opts, store: store, log: newLogger(opts.Log, opts.Now, "server"), instance: "gw-" + hex.EncodeToString(b[:]),
		crashed: map[string]bool{}, live: map[string]bool{}}
}
