# Logs an order service's effects through Ruby's Logger at its default
# format, to standard output: for each step of the plan (ARGV[0], JSON),
# the thing it made (named by the plan's noun) or replayed.
require "json"
require "logger"

log = Logger.new($stdout)
log.info("starting orders")
JSON.parse(ARGV[0]).each do |s|
  if s["created"]
    log.info("#{s["noun"]} created #{s["noun"]}Id=#{s["id"]} orderId=#{s["parent"]} idempotency_key=#{s["key"]}")
  else
    log.info("replaying stored response #{s["noun"]}Id=#{s["id"]} idempotency_key=#{s["key"]}")
  end
end
