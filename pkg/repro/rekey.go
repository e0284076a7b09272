package repro

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

func init() {
	register(&command{
		name:    "rekey",
		summary: "keep results whose settings were renamed or written out, under their new cache keys (dry run unless --yes)",
		run:     rekeyCmd,
	})
}

func rekeyCmd(e *cli, args []string) error {
	cmd := newCellCmd(e, cellSpec{
		name: "rekey",
		usage: []string{
			"usage: repro rekey FILE... [--profile quick|full] [--rename KIND.OLD=NEW]... [--add KIND.KEY=VALUE]... [--yes]",
			"\nA cell whose results were made under settings that compute the same",
			"thing as its current ones is stale all the same: its cache key hashes",
			"the settings as written. rekey records such results under the current",
			"key when the current settings are the recorded ones with keys renamed",
			"(--rename svgd.step=step_size) or with keys added at the value the run",
			"took when the file left them out (--add svgd.whiten=none; VALUE is JSON,",
			"or a string; repeat a key to allow several values), and every other part",
			"of the key (code, kind version, data, budget, evaluation, seed) is the",
			"same. The provenance's key, key document and settings are rewritten;",
			"the CSV and its checksum, timings and summary are not. Cells stale for",
			"any other reason are listed with it and left to repro run. Nothing is",
			"written without --yes. Whether the two settings compute the same thing",
			"is the caller's claim: check it afterwards with repro verify.",
		},
	})
	yes := cmd.fs.Bool("yes", false, "rewrite the provenances listed")
	var renames, adds repeated
	cmd.fs.Var(&renames, "rename", "KIND.OLD=NEW: settings key OLD of kind KIND is now NEW (repeatable)")
	cmd.fs.Var(&adds, "add", "KIND.KEY=VALUE: settings key KEY of kind KIND may now be written out with VALUE (repeatable)")
	cells, err := cmd.load(args)
	if err != nil {
		return err
	}
	rule, err := rekeyRule(renames, adds)
	if err != nil {
		return err
	}
	r, err := cmd.statusRunner(cells)
	if err != nil {
		return err
	}
	n, left := 0, 0
	verb := "would rekey"
	if *yes {
		verb = "rekeyed"
	}
	for _, c := range cells {
		out, err := r.Rekey(c, rule, *yes)
		if err != nil {
			return err
		}
		switch {
		case out.Rekeyed:
			n++
			fmt.Fprintf(e.stdout, "%s %s\n", verb, c.ID)
		case out.Why != "":
			left++
			fmt.Fprintf(e.stdout, "left %s: %s\n", c.ID, out.Why)
		}
	}
	switch {
	case n == 0:
		fmt.Fprintf(e.stderr, "nothing to rekey; %d stale cells left\n", left)
	case !*yes:
		fmt.Fprintf(e.stderr, "%d cells would be rekeyed, %d stale cells left; run again with --yes\n", n, left)
	default:
		fmt.Fprintf(e.stderr, "%d cells rekeyed, %d stale cells left\n", n, left)
	}
	return nil
}

// rekeyRule parses the --rename and --add values of repro rekey.
func rekeyRule(renames, adds []string) (harness.RekeyRule, error) {
	rule := harness.RekeyRule{Rename: map[string]map[string]string{}, Add: map[string]map[string][]any{}}
	split := func(flag, v string) (kind, key, val string, err error) {
		lhs, val, ok := strings.Cut(v, "=")
		kind, key, ok2 := strings.Cut(lhs, ".")
		if !ok || !ok2 || kind == "" || key == "" || val == "" {
			return "", "", "", usagef("--%s %q: want KIND.KEY=VALUE", flag, v)
		}
		return kind, key, val, nil
	}
	for _, v := range renames {
		kind, from, to, err := split("rename", v)
		if err != nil {
			return rule, err
		}
		if rule.Rename[kind] == nil {
			rule.Rename[kind] = map[string]string{}
		}
		rule.Rename[kind][from] = to
	}
	for _, v := range adds {
		kind, key, raw, err := split("add", v)
		if err != nil {
			return rule, err
		}
		var val any
		if json.Unmarshal([]byte(raw), &val) != nil {
			val = raw
		}
		if rule.Add[kind] == nil {
			rule.Add[kind] = map[string][]any{}
		}
		rule.Add[kind][key] = append(rule.Add[kind][key], val)
	}
	return rule, nil
}
