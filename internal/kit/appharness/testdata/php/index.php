<?php
// An order service for PHP's built-in server, logging JSON with Debian's
// Monolog 2 (JsonFormatter: the application's fields under "context"),
// for idem's capture harness:
//   IDEM_LOG=… IDEM_LEDGER=… IDEM_NAME=… php -S 127.0.0.1:PORT index.php
// It keeps an Idempotency-Key store in a file (the built-in server's
// workers share no memory): it replays a retry and answers 422 to the same
// key with another payload, before any effect. The request line is
// written when the response has been sent.
declare(strict_types=1);

// A client that goes away does not stop the order being placed.
ignore_user_abort(true);

require '/usr/share/php/Monolog/autoload.php';

use Monolog\Formatter\JsonFormatter;
use Monolog\Handler\StreamHandler;
use Monolog\Logger;

$start = microtime(true);
$handler = new StreamHandler(getenv('IDEM_LOG'));
$handler->setFormatter(new JsonFormatter());
$log = new Logger('orders');
$log->pushHandler($handler);

$rid = $_SERVER['HTTP_X_REQUEST_ID'] ?? '';
$key = $_SERVER['HTTP_IDEMPOTENCY_KEY'] ?? '';
$step = $_SERVER['HTTP_X_HARNESS_STEP'] ?? '';
$method = $_SERVER['REQUEST_METHOD'];
$uri = $_SERVER['REQUEST_URI'];
$status = 404;
$done = null;

if ($method === 'POST' && parse_url($uri, PHP_URL_PATH) === '/v1/orders') {
    usleep(((int)($_SERVER['HTTP_X_HARNESS_DELAY_MS'] ?? 0)) * 1000);
    $body = json_decode(file_get_contents('php://input'), true) ?? [];
    ksort($body);
    $fp = 'sha256:' . hash('sha256', json_encode($body, JSON_UNESCAPED_SLASHES));
    $store = getenv('IDEM_LEDGER') . '.store';
    $f = fopen($store, 'c+');
    flock($f, LOCK_EX);
    $keys = json_decode(stream_get_contents($f) ?: '{}', true);
    $fields = ['request_id' => $rid, 'idempotency_key' => $key === '' ? null : $key, 'fingerprint' => $fp];
    $seen = $key !== '' ? ($keys['keys'][$key] ?? null) : null;
    if ($seen !== null && $seen['fp'] !== $fp) {
        $status = 422;
        $done = ['order_id' => '', 'created' => false];
        $log->warning('idempotency key reused with another payload', $fields);
        $answer = ['error' => 'payload mismatch'];
    } elseif ($seen !== null) {
        $status = 201;
        $done = ['order_id' => $seen['order'], 'created' => false];
        $log->info('order replayed', $fields + ['order_id' => $seen['order'], 'decision' => 'replay']);
        header('Idempotent-Replayed: true');
        $answer = ['order_id' => $seen['order']];
    } else {
        $keys['n'] = ($keys['n'] ?? 0) + 1;
        $order = 'ord_' . str_replace('-', '_', getenv('IDEM_NAME')) . '_' . $keys['n'];
        if ($key !== '') {
            $keys['keys'][$key] = ['fp' => $fp, 'order' => $order];
        }
        $status = 201;
        $done = ['order_id' => $order, 'created' => true];
        $log->info('order created', $fields + ['order_id' => $order]);
        $answer = ['order_id' => $order];
    }
    ftruncate($f, 0);
    rewind($f);
    fwrite($f, json_encode($keys));
    flock($f, LOCK_UN);
    fclose($f);
    http_response_code($status);
    header('Content-Type: application/json');
    echo json_encode($answer);
} else {
    http_response_code(404);
}

// After the response: the request line, then the ledger.
if (function_exists('fastcgi_finish_request')) {
    fastcgi_finish_request();
}
flush();
$log->info('request', ['request_id' => $rid, 'method' => $method, 'uri' => $uri, 'status' => $status,
    'duration_ms' => round((microtime(true) - $start) * 1000, 3), 'idempotency_key' => $key === '' ? null : $key]);
if ($done !== null) {
    file_put_contents(getenv('IDEM_LEDGER'), json_encode(['step' => $step, 'request_id' => $rid, 'key' => $key,
        'order_id' => $done['order_id'], 'created' => $done['created'], 'status' => $status]) . "\n", FILE_APPEND | LOCK_EX);
}
