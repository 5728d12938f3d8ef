// Package grammarharness captures proxies whose access logs idem reads by
// their own format strings: Apache httpd, Tomcat, lighttpd, Varnish and
// squid (its native default log too, read with no config),
// and nginx and HAProxy with formats laid out as no stock format is. Each
// runs on 127.0.0.1 in front of internal/kit/harness's backend (Tomcat serves
// the requests itself), writes its logs in formats of the capture kit's
// (internal/kit/capture's formats.go), and each capture is kept under
// fixtures/real/ with the proxy's config, the --config file whose
// log_format reads it (idem.json, when it needs one) and the record of
// what the harness sent (grammar.json). What a test expects comes from
// what the harness sent and measured, never from idem's reading.
package grammarharness
