package experiment

import "github.com/mmdfw/mmdfw/internal/harness"

func registerData(r *harness.Registry)    {}
func registerPending(r *harness.Registry) {}
