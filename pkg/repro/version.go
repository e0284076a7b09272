package repro

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print the module version, Go version and platform",
		run: func(e *cli, args []string) error {
			fs := newFlagSet(e.stderr, "version", "usage: repro version", "\nPrints the module version, the Go version and the platform.")
			if err := parseNoArgs(fs, args); err != nil {
				return err
			}
			v := "(devel)"
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
				v = bi.Main.Version
			}
			fmt.Fprintf(e.stdout, "repro %s %s %s/%s\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	})
}
