package b

import (
	"testing"

	"example.com/m/a"
)

func TestB(t *testing.T) { _ = a.UsedByTest }
