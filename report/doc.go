// Package report writes an experiment's Results out as files: results.json,
// one CSV file per table, one SVG image per plot and a self-contained
// report.html that opens without a network. Read loads results.json back.
package report
