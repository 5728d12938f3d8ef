// Logs an order service's effects through SLF4J with logback at its
// default configuration (no logback.xml: its BasicConfigurator's
// pattern, to standard output): for each step of the plan (args[0], one
// "key noun id parent created" a line), the thing it made or replayed.
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class Orders {
    private static final Logger log = LoggerFactory.getLogger(Orders.class);

    public static void main(String[] args) {
        log.info("starting orders");
        for (String line : args[0].split("\n")) {
            String[] f = line.split(" ");
            if (f[4].equals("true")) {
                log.info("{} created id={} order_id={} idempotency_key={}", f[1], f[2], f[3], f[0]);
            } else {
                log.info("replaying stored response id={} idempotency_key={}", f[2], f[0]);
            }
        }
    }
}
