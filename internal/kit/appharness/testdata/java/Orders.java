// An order service on the JDK's HTTP server, logging with SLF4J, logback
// and logstash-logback-encoder (Debian's), for idem's capture harness:
//   java -cp …:. -Dlogback.configurationFile=logback.xml Orders LOG LEDGER NAME
// LogstashEncoder writes @timestamp, @version, message, logger_name,
// thread_name, level, level_value, the MDC (requestId, idempotencyKey)
// and the structured arguments (kv) as top-level fields. The request line
// is logged when the response has been sent, with its elapsed_time in ms.
// It keeps an Idempotency-Key store: it replays a retry and answers 422 to
// the same key with another payload, before any effect. Prints
// "listening PORT" once it serves 127.0.0.1.
import static net.logstash.logback.argument.StructuredArguments.kv;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

public class Orders {
    static final Logger log = LoggerFactory.getLogger("shop.Orders");
    static final ObjectMapper json = new ObjectMapper();
    static final Map<String, String[]> byKey = new HashMap<>();
    static int n;
    static Path ledger;
    static String name;

    public static void main(String[] args) throws Exception {
        ledger = Path.of(args[1]);
        name = args[2];
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/v1/orders", Orders::handle);
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> server.stop(0)));
        System.out.println("listening " + server.getAddress().getPort());
        System.out.flush();
    }

    static void handle(HttpExchange ex) throws IOException {
        long start = System.nanoTime();
        String rid = header(ex, "X-Request-Id"), key = header(ex, "Idempotency-Key");
        MDC.put("requestId", rid);
        if (!key.isEmpty()) MDC.put("idempotencyKey", key);
        int status = 201;
        String order = "", answer;
        boolean created = false;
        try {
            Thread.sleep(Long.parseLong(header(ex, "X-Harness-Delay-Ms").isEmpty() ? "0" : header(ex, "X-Harness-Delay-Ms")));
            @SuppressWarnings("unchecked")
            Map<String, Object> body = new TreeMap<>(json.readValue(ex.getRequestBody(), Map.class));
            String fp = "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(json.writeValueAsBytes(body)));
            synchronized (byKey) {
                String[] seen = key.isEmpty() ? null : byKey.get(key);
                if (seen != null && !seen[0].equals(fp)) {
                    status = 422;
                } else if (seen != null) {
                    order = seen[1];
                } else {
                    order = "ord_" + name + "_" + (++n);
                    created = true;
                    if (!key.isEmpty()) byKey.put(key, new String[] {fp, order});
                }
            }
            if (status == 422) {
                log.warn("idempotency key reused with another payload", kv("fingerprint", fp));
                answer = "{\"error\":\"payload mismatch\"}";
            } else if (created) {
                log.info("order created", kv("fingerprint", fp), kv("orderId", order));
                answer = "{\"order_id\":\"" + order + "\"}";
            } else {
                log.info("order replayed", kv("fingerprint", fp), kv("orderId", order), kv("decision", "replay"));
                ex.getResponseHeaders().set("Idempotent-Replayed", "true");
                answer = "{\"order_id\":\"" + order + "\"}";
            }
            byte[] out = answer.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            try {
                ex.sendResponseHeaders(status, out.length);
                ex.getResponseBody().write(out);
                ex.close();
            } catch (IOException e) {
                log.warn("response not written", kv("error", e.toString()));
            }
            log.info("request finished", kv("method", ex.getRequestMethod()), kv("requested_uri", ex.getRequestURI().getPath()),
                kv("status_code", status), kv("elapsed_time", (System.nanoTime() - start) / 1_000_000));
            String line = json.writeValueAsString(Map.of("step", header(ex, "X-Harness-Step"), "request_id", rid, "key", key,
                "order_id", order, "created", created, "status", status));
            synchronized (byKey) {
                Files.writeString(ledger, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            }
        } catch (Exception e) {
            log.error("failed", kv("error", e.toString()));
            ex.close();
        } finally {
            MDC.clear();
        }
    }

    static String header(HttpExchange ex, String name) {
        String v = ex.getRequestHeaders().getFirst(name);
        return v == null ? "" : v;
    }
}
