package report

import (
	"encoding/json"

	"github.com/mmdfw/mmdfw/pkg/hmc"
)

// RefCapped returns how many chains of the HMC reference a cell records
// (its summary's reference diagnostics, per_chain) adapted a step size at
// which the nominal path reaches the reference's max_steps, by
// hmc.Settings.PathCapped on the reference settings of the cell's key
// (zero fields at their defaults), and how many chains it records. It is
// the run-time "capped" check applied to every reference, not only
// posteriordb's: such a chain's trajectories are cut short and it
// explores slowly. A cell without a reference, or whose reference
// settings do not decode, returns 0, 0.
func RefCapped(c *Cell) (capped, chains int) {
	m, ok := RefSummary(c)
	if !ok {
		return 0, 0
	}
	var s hmc.Settings
	if ref := c.Prov.KeyDoc.Reference; ref != nil {
		b, err := json.Marshal(ref)
		if err != nil || json.Unmarshal(b, &s) != nil {
			return 0, 0
		}
	}
	pc, _ := m["per_chain"].([]any)
	for _, ch := range pc {
		cm, ok := ch.(map[string]any)
		if !ok {
			continue
		}
		eps, ok := cm["step_size"].(float64)
		if !ok {
			continue
		}
		chains++
		if s.PathCapped(eps) {
			capped++
		}
	}
	return capped, chains
}
