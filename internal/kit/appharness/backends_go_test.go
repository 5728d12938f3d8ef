package appharness

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	echolog "github.com/labstack/gommon/log"
	"github.com/rs/zerolog"
	"github.com/rs/zerolog/hlog"
	"github.com/sirupsen/logrus"
	"go.uber.org/zap"
)

// A backend is one order service logging with one library.
type backend struct {
	library     string
	format      string // what idem should recognise its lines as
	abortLogged bool
	// tool is the program an out-of-process backend needs; "" runs in
	// this process.
	tool string
	// start serves the backend on 127.0.0.1, writing its log and ledger;
	// stop waits until every request it took is logged.
	start func(t *testing.T, log, ledger string) (base string, stop func())
}

// serveGo serves h on a loopback port; stopping waits for the handlers
// (and the access lines written after them).
func serveGo(t *testing.T, h http.Handler, closers ...func() error) (string, func()) {
	t.Helper()
	srv := httptest.NewServer(h)
	return srv.URL, func() {
		srv.Close()
		for _, c := range closers {
			if err := c(); err != nil {
				t.Errorf("closing backend: %v", err)
			}
		}
	}
}

func openLog(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func newOrders(t *testing.T, prefix, ledger string) *orders {
	t.Helper()
	o, err := openOrders(prefix, ledger)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

type ridKey struct{}

// withRequestID is the middleware services using a plain logger write:
// the propagated X-Request-Id, or a new id, in the context.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if id == "" {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ridKey{}, id)))
	})
}

func requestID(r *http.Request) string { s, _ := r.Context().Value(ridKey{}).(string); return s }

// accessLog calls logf after each request with what it measured.
func accessLog(next http.Handler, logf func(r *http.Request, status int, d time.Duration)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		logf(r, rec.Status, time.Since(start))
	})
}

func ordersHandler(t *testing.T, o *orders, rid func(*http.Request) string, logEffect func(r *http.Request, p placed)) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+route, func(w http.ResponseWriter, r *http.Request) {
		p, err := o.place(r, rid(r), func(p placed) { logEffect(r, p) })
		if err != nil {
			t.Errorf("ledger: %v", err)
		}
		respond(w, p)
	})
	return mux
}

// slogBackend: log/slog's JSONHandler with its defaults, an access line
// and an effect line per request.
func slogBackend(t *testing.T, logPath, ledger string) (string, func()) {
	f := openLog(t, logPath)
	logger := slog.New(slog.NewJSONHandler(f, nil))
	o := newOrders(t, "ord_slog", ledger)
	h := ordersHandler(t, o, requestID, func(r *http.Request, p placed) {
		l := logger.With("request_id", requestID(r), "idempotency_key", p.Key)
		if p.Created {
			l.Info("order created", "order_id", p.OrderID)
		} else {
			l.Info("order replayed", "order_id", p.OrderID, "decision", "replay")
		}
	})
	return serveGo(t, withRequestID(accessLog(h, func(r *http.Request, status int, d time.Duration) {
		logger.Info("request", "request_id", requestID(r), "method", r.Method, "path", r.URL.Path, "status", status, "duration", d)
	})), o.Close, f.Close)
}

// zapBackend: zap's production logger (JSON, epoch-seconds ts, durations
// in float seconds), writing to the log file.
func zapBackend(t *testing.T, logPath, ledger string) (string, func()) {
	cfg := zap.NewProductionConfig()
	cfg.OutputPaths = []string{logPath}
	logger, err := cfg.Build()
	if err != nil {
		t.Fatal(err)
	}
	o := newOrders(t, "ord_zap", ledger)
	h := ordersHandler(t, o, requestID, func(r *http.Request, p placed) {
		l := logger.With(zap.String("request_id", requestID(r)), zap.String("idempotency_key", p.Key))
		if p.Created {
			l.Info("order created", zap.String("order_id", p.OrderID))
		} else {
			l.Info("order replayed", zap.String("order_id", p.OrderID), zap.String("decision", "replay"))
		}
	})
	return serveGo(t, withRequestID(accessLog(h, func(r *http.Request, status int, d time.Duration) {
		logger.Info("request", zap.String("request_id", requestID(r)), zap.String("method", r.Method),
			zap.String("path", r.URL.Path), zap.Int("status", status), zap.Duration("duration", d))
	})), o.Close, func() error { _ = logger.Sync(); return nil })
}

// zerologBackend: zerolog with hlog's own middleware, as its README wires
// it: hlog.NewHandler, hlog.AccessHandler and hlog.RequestIDHandler (which
// makes its own xid and ignores X-Request-Id). zerolog's defaults stand:
// RFC 3339 seconds in "time", durations in milliseconds.
func zerologBackend(t *testing.T, logPath, ledger string) (string, func()) {
	f := openLog(t, logPath)
	logger := zerolog.New(f).With().Timestamp().Logger()
	o := newOrders(t, "ord_zerolog", ledger)
	rid := func(r *http.Request) string {
		id, _ := hlog.IDFromRequest(r)
		return id.String()
	}
	var h http.Handler = ordersHandler(t, o, rid, func(r *http.Request, p placed) {
		l := hlog.FromRequest(r)
		if p.Created {
			l.Info().Str("idempotency_key", p.Key).Str("order_id", p.OrderID).Msg("order created")
		} else {
			l.Info().Str("idempotency_key", p.Key).Str("order_id", p.OrderID).Str("decision", "replay").Msg("order replayed")
		}
	})
	h = hlog.RequestIDHandler("req_id", "Request-Id")(h)
	h = hlog.AccessHandler(func(r *http.Request, status, size int, d time.Duration) {
		hlog.FromRequest(r).Info().Str("method", r.Method).Stringer("url", r.URL).
			Int("status", status).Int("size", size).Dur("duration", d).Msg("")
	})(h)
	h = hlog.NewHandler(logger)(h)
	return serveGo(t, h, o.Close, f.Close)
}

// logrusBackend: logrus with its JSONFormatter (sorted keys, RFC 3339
// seconds unless timeFormat says otherwise), fields as a service writes
// them.
func logrusBackend(name, timeFormat string) func(t *testing.T, logPath, ledger string) (string, func()) {
	return func(t *testing.T, logPath, ledger string) (string, func()) {
		return logrusServe(t, name, &logrus.JSONFormatter{TimestampFormat: timeFormat}, logPath, ledger)
	}
}

func logrusServe(t *testing.T, name string, formatter logrus.Formatter, logPath, ledger string) (string, func()) {
	f := openLog(t, logPath)
	logger := logrus.New()
	logger.SetFormatter(formatter)
	logger.SetOutput(f)
	o := newOrders(t, "ord_"+strings.ReplaceAll(name, "-", "_"), ledger)
	h := ordersHandler(t, o, requestID, func(r *http.Request, p placed) {
		l := logger.WithFields(logrus.Fields{"request_id": requestID(r), "idempotency_key": p.Key, "order_id": p.OrderID})
		if p.Created {
			l.Info("order created")
		} else {
			l.WithField("decision", "replay").Info("order replayed")
		}
	})
	return serveGo(t, withRequestID(accessLog(h, func(r *http.Request, status int, d time.Duration) {
		logger.WithFields(logrus.Fields{"request_id": requestID(r), "method": r.Method, "path": r.URL.Path,
			"status": status, "duration": d}).Info("request completed")
	})), o.Close, f.Close)
}

// echoBackend: echo with its RequestID middleware and its Logger
// middleware's default JSON format; effect lines through the context's
// logger (gommon's JSON).
func echoBackend(t *testing.T, logPath, ledger string) (string, func()) {
	f := openLog(t, logPath)
	e := echo.New()
	e.Logger.SetOutput(f)
	e.Logger.SetLevel(echolog.INFO)
	e.Use(middleware.RequestID())
	//lint:ignore SA1019 the deprecated Logger middleware is what echo services run, and its JSON is the format under test
	e.Use(middleware.LoggerWithConfig(middleware.LoggerConfig{Output: f}))
	o := newOrders(t, "ord_echo", ledger)
	e.POST(route, func(c echo.Context) error {
		rid := c.Response().Header().Get(echo.HeaderXRequestID)
		p, err := o.place(c.Request(), rid, func(p placed) {
			j := echolog.JSON{"message": "order created", "request_id": rid, "idempotency_key": p.Key, "order_id": p.OrderID}
			if !p.Created {
				j["message"], j["decision"] = "order replayed", "replay"
			}
			c.Logger().Infoj(j)
		})
		if err != nil {
			return err
		}
		respond(c.Response(), p)
		return nil
	})
	return serveGo(t, e, o.Close, f.Close)
}

var goBackends = []backend{
	{library: "slog", format: "slog", start: slogBackend},
	{library: "zap", format: "zap", start: zapBackend},
	{library: "zerolog", format: "zerolog", start: zerologBackend},
	{library: "logrus", format: "logrus", start: logrusBackend("logrus", "")},
	// Time layouts logrus services set: RFC 1123, and Go's time.String()
	// form that old logrus wrote.
	{library: "logrus-rfc1123", format: "logrus", start: logrusBackend("logrus-rfc1123", time.RFC1123Z)},
	{library: "logrus-timestring", format: "logrus", start: logrusBackend("logrus-timestring", "2006-01-02 15:04:05.999999999 -0700 MST")},
	{library: "echo", format: "echo", start: echoBackend},
}
