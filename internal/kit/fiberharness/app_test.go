package fiberharness

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/idempotency"
	"github.com/gofiber/fiber/v2/middleware/logger"
	"github.com/gofiber/fiber/v2/middleware/requestid"
	"github.com/idem-cli/idem/internal/kit/capture"
)

// lifetime is the middleware's Lifetime: short, so that a key expires
// within the test (its in-memory storage counts whole seconds).
const lifetime = 2 * time.Second

// accessFormat is the logger's template: one JSON object per request with
// what an operator logs (the request id requestid keeps in Locals, the
// middleware's key header, the client's ip, method, path, status,
// latency: Fiber's default format's fields, and the two ids). Fiber writes
// the values as they are; none of these needs JSON escaping here (the
// key is checked to be 36 characters, the path is the route's).
const accessFormat = `{"time":"${time}","request_id":"${locals:requestid}","idempotency_key":"${reqHeader:X-Idempotency-Key}",` +
	`"ip":"${ip}","method":"${method}","path":"${path}","status":${status},"latency":"${latency}"}` + "\n"

// hashedFormat adds payload_hash, a custom tag with the body's SHA-256,
// as a service that wants to tell a key's bodies apart logs it.
const hashedFormat = `{"time":"${time}","request_id":"${locals:requestid}","idempotency_key":"${reqHeader:X-Idempotency-Key}",` +
	`"ip":"${ip}","method":"${method}","path":"${path}","status":${status},"latency":"${latency}","payload_hash":"${payload_hash}"}` + "\n"

// payloadHash is the payload_hash tag: "sha256:" and the body's hex.
func payloadHash(out logger.Buffer, c *fiber.Ctx, _ *logger.Data, _ string) (int, error) {
	return out.WriteString(capture.Fingerprint(c.Body()))
}

// newApp is the order service: requestid (X-Request-Id, or a UUID), the
// access logger around everything, then the idempotency middleware as its
// documentation wires it (the default X-Idempotency-Key header, a key of
// 36 characters, the in-memory lock and storage), with a short Lifetime.
// The handler waits X-Harness-Delay-Ms, makes an order, logs "order
// created" with order_id through slog, records it in the ledger and
// answers 201.
// With hashed, the access line also carries payload_hash.
func newApp(out io.Writer, l *capture.Ledger, hashed bool) *fiber.App {
	w := capture.NewSyncWriter(out) // the logger middleware and slog share the file
	log := slog.New(slog.NewJSONHandler(w, nil))
	// Behind a proxy, c.IP() is the client's only with ProxyHeader; Caddy
	// sets X-Forwarded-For to the address the request came from.
	app := fiber.New(fiber.Config{DisableStartupMessage: true, ProxyHeader: fiber.HeaderXForwardedFor})
	app.Use(requestid.New())
	lc := logger.Config{Format: accessFormat, TimeFormat: time.RFC3339Nano, TimeZone: "UTC", Output: w}
	if hashed {
		lc.Format, lc.CustomTags = hashedFormat, map[string]logger.LogFunc{"payload_hash": payloadHash}
	}
	app.Use(logger.New(lc))
	app.Use(idempotency.New(idempotency.Config{Lifetime: lifetime}))

	var mu sync.Mutex
	n := 0
	app.Post("/v1/orders", func(c *fiber.Ctx) error {
		var body struct {
			SKU string `json:"sku"`
			Qty int    `json:"qty"`
		}
		if err := json.Unmarshal(c.Body(), &body); err != nil {
			return fiber.NewError(fiber.StatusBadRequest, "bad body")
		}
		if ms, err := strconv.Atoi(c.Get(capture.HeaderDelay)); err == nil && ms > 0 {
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
		mu.Lock()
		n++
		id := fmt.Sprintf("ord_%d", n)
		mu.Unlock()
		rid, _ := c.Locals("requestid").(string)
		key := c.Get("X-Idempotency-Key")
		log.Info("order created", "request_id", rid, "idempotency_key", key, "order_id", id, "sku", body.SKU)
		if err := l.Add(capture.Effect{Step: c.Get(capture.HeaderStep), RequestID: rid, Key: key, OrderID: id,
			Created: true, Status: fiber.StatusCreated}); err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"order_id": id, "sku": body.SKU})
	})
	return app
}

// startApp serves the app on a free loopback port until the test ends.
func startApp(t *testing.T, out io.Writer, l *capture.Ledger, hashed bool) (addr string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	app := newApp(out, l, hashed)
	done := make(chan error, 1)
	go func() { done <- app.Listener(ln) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			if err := app.ShutdownWithTimeout(5 * time.Second); err != nil {
				t.Errorf("fiber shutdown: %v", err)
			}
			<-done
		})
	}
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}
