// Package output owns where a run's profile goes: every output of jsprof
// run is an Output, chosen by the command and opened by the pipeline
// (internal/profiler) once the module is linked, before the guest runs,
// then written from the run's Result.
//
//	pprof.go      -o: the pprof profile (File)
//	collapsed.go  --collapsed: the stacks in collapsed format (Collapsed)
//	report.go     --report-json and --report: the cost report as JSON
//	              (ReportJSON, with --input-cost's measurements when
//	              the command gives them) and as text tables (ReportText)
//	html.go       --html: the HTML report, jsprof report --html's page
//	              (with --input-cost's section when given)
//	              (HTML; RunHTML for jsprof run)
//	outdir.go     --out-dir: each input's own profile (Dir)
//	server.go     --pprof-addr: the running guest's profile served over
//	              HTTP (Server, a Watcher)
//	pyroscope.go  --push: the profile, or each input's, sent to a
//	              Pyroscope server by its Connect push API (Push); the
//	              server of its tests is pushtest's
//
// Adding an output is one new file here with a type that implements
// Output, and the line in cmd/jsprof that chooses it from a flag.
//
// An output that writes a file names it (Named), so that Open checks, for
// all of a run's outputs at once, that none is another or one of the
// files the run reads, and creates each before the guest runs: an
// unwritable path is said before a long run, and no guest can redirect a
// write (internal/outfile). It owns what each output writes and when;
// how a file is written belongs to internal/outfile, the profile format
// to jsframes/jsprofile, the tables to internal/view/report, and what
// the run measured to the pipeline.
package output
