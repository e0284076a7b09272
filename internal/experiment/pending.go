package experiment

import "github.com/mmdfw/mmdfw/internal/harness"

func registerPending(r *harness.Registry) {}
