# An order service on Rails 6.1 (ActionController::API, one file), logging
# its requests with lograge's JSON formatter, for idem's capture harness:
#   IDEM_LOG=… IDEM_LEDGER=… IDEM_NAME=… ruby orders.rb PORT
# lograge writes one line per request when it is done (method, path,
# format, controller, action, status, duration in ms), with the time, the
# request id (ActionDispatch::RequestId takes X-Request-Id) and the key as
# custom options; the order lines are JSON written through Rails.logger.
# It keeps an Idempotency-Key store: it replays a retry and answers 422 to
# the same key with another payload, before any effect. Prints
# "listening PORT" once it serves 127.0.0.1.
require "json"
require "digest"
require "time"
require "webrick"
require "rails"
require "action_controller/railtie"
require "lograge"

STORE = { keys: {}, n: 0 }
LOCK = Mutex.new

class OrdersApp < Rails::Application
  config.root = __dir__
  config.eager_load = false
  config.secret_key_base = "idem-capture" * 8
  config.hosts.clear
  # A file of its own, so that Logger writes no "# Logfile created" header.
  config.logger = ActiveSupport::Logger.new(File.open(ENV.fetch("IDEM_LOG"), "a").tap { |f| f.sync = true })
  config.log_level = :info
  config.lograge.enabled = true
  config.lograge.formatter = Lograge::Formatters::Json.new
  # lograge 0.10 (Debian's) has no custom_payload: the request's headers
  # are in the event's payload.
  config.lograge.custom_options = lambda do |event|
    headers = event.payload[:headers]
    { time: Time.now.utc.iso8601(6), request_id: headers["action_dispatch.request_id"], idempotency_key: headers["Idempotency-Key"] }
  end
end

class OrdersController < ActionController::API
  def create
    sleep(request.headers["X-Harness-Delay-Ms"].to_i / 1000.0)
    key = request.headers["Idempotency-Key"].to_s
    body = JSON.parse(request.raw_post)
    fp = "sha256:" + Digest::SHA256.hexdigest(JSON.generate(body.sort.to_h))
    fields = { time: Time.now.utc.iso8601(6), request_id: request.request_id, idempotency_key: key.empty? ? nil : key, fingerprint: fp }
    status, order, created = LOCK.synchronize do
      seen = key.empty? ? nil : STORE[:keys][key]
      if seen && seen[:fp] != fp
        [422, "", false]
      elsif seen
        [201, seen[:order], false]
      else
        STORE[:n] += 1
        order = "ord_#{ENV.fetch('IDEM_NAME')}_#{STORE[:n]}"
        STORE[:keys][key] = { fp: fp, order: order } unless key.empty?
        [201, order, true]
      end
    end
    if status == 422
      Rails.logger.warn(JSON.generate(fields.merge(message: "idempotency key reused with another payload")))
      render json: { error: "payload mismatch" }, status: 422
    elsif created
      Rails.logger.info(JSON.generate(fields.merge(message: "order created", order_id: order)))
      render json: { order_id: order }, status: 201
    else
      Rails.logger.info(JSON.generate(fields.merge(message: "order replayed", order_id: order, decision: "replay")))
      response.set_header("Idempotent-Replayed", "true")
      render json: { order_id: order }, status: 201
    end
    done = { step: request.headers["X-Harness-Step"], request_id: request.request_id, key: key, order_id: order, created: created, status: status }
    ledger = ENV.fetch("IDEM_LEDGER")
    # After lograge's line, written once the action is done.
    Thread.new { sleep 0.05; File.open(ledger, "a") { |f| f.puts(JSON.generate(done)) } }
  end
end

OrdersApp.initialize!
OrdersApp.routes.draw { post "/v1/orders" => "orders#create" }

server = WEBrick::HTTPServer.new(BindAddress: "127.0.0.1", Port: 0, Logger: WEBrick::Log.new(File::NULL), AccessLog: [])
server.mount "/", Rack::Handler::WEBrick, OrdersApp
trap("TERM") { server.shutdown }
$stdout.puts "listening #{server.listeners.first.addr[1]}"
$stdout.flush
server.start
