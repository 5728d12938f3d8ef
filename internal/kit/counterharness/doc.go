// Package counterharness captures a stack whose request ids are not
// unique: real nginx load-balancing over two replicas of a small order
// service whose request ids are its own per-process counter (req-1,
// req-2, ... in each replica, as a framework's default request-id
// middleware numbers them), with a shared order store, a client that
// retries a 504 under the same key and writes its own log of each
// attempt (the key, no request id), and nginx logging the key and no id.
// What the tests expect comes from what the harness sent and what each
// replica recorded doing, never from idem's reading of the logs: each
// send is one delivery, the counters' collisions join nothing, and the
// one retry the client made is the one retry counted.
package counterharness
