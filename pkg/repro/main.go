package repro

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
)

// command is one subcommand of repro. Each lives in its own file and adds
// itself to commands from an init function.
type command struct {
	name    string
	summary string
	// run executes the command with the arguments after its name; reg
	// holds what the experiment files may name.
	run func(reg *Registry, args []string) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("repro: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// errUsage marks an error whose usage message has already been printed.
// Every usage error (a bad flag, a flag value out of range, a missing
// argument) exits with status 2.
var errUsage = errors.New("usage")

// usageError is a usage error with its message, printed by realMain.
type usageError struct{ msg string }

func (e *usageError) Error() string   { return e.msg }
func (e *usageError) Is(t error) bool { return t == errUsage }

// usagef returns a usage error saying what is wrong.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// exitInterrupted is the exit status after SIGINT (128 + 2), as a shell
// reports a process killed by it, once the command has stopped cleanly.
const exitInterrupted = 130

// interruptedError is the error of a command stopped by SIGINT or SIGTERM
// after it saved what it had finished.
type interruptedError struct{ err error }

func (e *interruptedError) Error() string { return e.err.Error() }
func (e *interruptedError) Unwrap() error { return e.err }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: repro <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'repro <command> -h' for the flags of a command.")
}

// Main runs the repro command args names (args without the program's
// name) with the registry reg and returns its exit status.
func Main(reg *Registry, args []string, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "repro: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	if err := c.run(reg, args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "repro %s: %v\n", c.name, err)
		}
		if errors.Is(err, errUsage) {
			return 2
		}
		fmt.Fprintf(stderr, "repro %s: %v\n", c.name, err)
		var ie *interruptedError
		if errors.As(err, &ie) {
			return exitInterrupted
		}
		return 1
	}
	return 0
}
