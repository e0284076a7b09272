package harness

// MissingReason returns why the cell's data is absent now, "" when it is
// present: the reason its key records, which a run writes as the error of
// the skipped cell (a pending cell whose data is missing is skipped when
// run).
func (s CellStatus) MissingReason() string { return s.ck.Missing }
