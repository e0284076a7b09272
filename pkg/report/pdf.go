package report

import (
	"os"
	"strconv"
	"sync"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgpdf"
)

// pdfDates fixes the creation and modification dates that every PDF
// records, and the order of its catalogue, so that the same results give
// byte-identical PDFs: SOURCE_DATE_EPOCH (seconds since 1970, the
// reproducible-builds convention) when set, the epoch itself otherwise.
// fpdf keeps these defaults in package state read by each new document.
var pdfDates = sync.OnceFunc(func() {
	t := time.Unix(0, 0).UTC()
	if v, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		t = time.Unix(v, 0).UTC()
	}
	fpdf.SetDefaultCreationDate(t)
	fpdf.SetDefaultModificationDate(t)
	fpdf.SetDefaultCatalogSort(true)
})

// newPDF is vgpdf.New with reproducible dates.
func newPDF(w, h vg.Length) *vgpdf.Canvas {
	pdfDates()
	return vgpdf.New(w, h)
}
