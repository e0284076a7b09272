package setting

import (
	"errors"
	"fmt"
	"testing"
)

func TestNonNegative(t *testing.T) {
	if err := NonNegative("a", 0, "b", 1.5, "c", int64(2)); err != nil {
		t.Fatalf("valid values: %v", err)
	}
	err := NonNegative("a", 1, "b", -0.5, "c", -1)
	e, ok := As(fmt.Errorf("wrapped: %w", err))
	if !ok || e.Field != "b" || e.Value != -0.5 {
		t.Fatalf("got %v (%#v), want field b = -0.5", err, e)
	}
	if got, want := err.Error(), "b = -0.5: must not be negative"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	nan := 0.0
	nan /= nan
	if e, ok := As(NonNegative("x", nan)); !ok || e.Field != "x" {
		t.Errorf("NaN accepted: %v", e)
	}
	if _, ok := As(errors.New("other")); ok {
		t.Error("As accepted a plain error")
	}
}

func ExampleError() {
	err := NonNegative("iterations", 10, "step", -0.1)
	fmt.Println(err)
	// Output: step = -0.1: must not be negative
}

func TestOneOf(t *testing.T) {
	type rule string
	for _, v := range []rule{"", "a", "b"} {
		if err := OneOf("rule", v, "a", "b"); err != nil {
			t.Errorf("%q refused: %v", v, err)
		}
	}
	err := OneOf("rule", rule("c"), "a", "b")
	e, ok := As(err)
	if !ok || e.Field != "rule" || e.Value != "c" {
		t.Fatalf("got %v (%#v), want field rule = c", err, e)
	}
	if got, want := err.Error(), `rule = c: is not one of ["a" "b"]`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
