// Package experiment reruns published studies of latency compensation
// with bots: each experiment is a design of conditions, each run as
// matches over emulated links from seeds, and produces Results that the
// report package writes out as results.json, CSV tables, plots and a
// self-contained HTML report.
package experiment
