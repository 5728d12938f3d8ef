package diagnose

// catalog is every rule, in the order `idem rules` and docs/rules.md list
// them: the diagnosis table's rows first, then the refinements.
var catalog []*Rule

func init() {
	catalog = []*Rule{
		responseLost,
		retryNewKey,
		duplicateSubmission,
		nonAtomicReservation,
		payloadMismatch,
		inProgressRetry,
		externalDuplicate,
		unkeyedRetry,
		keyExpired,
		attemptScopedKey,
		lateCompletion,
		retryStorm,
		replayDivergence,
		proxyRetry,
		requestIDReused,
		requestIDNotPropagated,
		secretInLogs,
	}
}
