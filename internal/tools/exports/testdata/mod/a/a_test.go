package a_test

import (
	"testing"

	"example.com/m/a"
)

func TestA(t *testing.T) { _ = a.OnlyMine; a.Unused() }
