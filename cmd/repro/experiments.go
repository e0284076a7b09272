package main

// The experiments' datasets, methods and metrics register themselves into
// harness.Default.
import _ "github.com/mmdfw/mmdfw/internal/experiment"
