package server

import (
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Settings of the startup packet. A client sends them two ways: as
// parameters of their own (application_name=psql, DateStyle=ISO), and in
// the parameter "options", a command line for the backend process (libpq's
// PGOPTIONS and options= keyword, used by psql, psycopg, pgbench; JDBC's
// options property):
//
//	options=-c search_path=s1 -c synchronous_commit=off --DateStyle=German
//
// PostgreSQL (process_startup_options) applies the command line first and
// the other parameters after it, so an explicit parameter wins over the
// same setting in options. Any error is FATAL: the connection is refused.

// applyStartupSettings applies a startup packet's settings to set.
func applyStartupSettings(set *settings, params map[string]string) error {
	pairs, err := parseStartupOptions(params["options"])
	if err != nil {
		return fatal(err)
	}
	for _, p := range pairs {
		if _, err := set.set(p[0], p[1], false); err != nil {
			return fatal(err)
		}
	}
	for k, v := range params {
		switch strings.ToLower(k) {
		case "user", "database", "options", "replication":
			continue
		}
		if _, err := set.set(k, v, false); err != nil {
			return fatal(err)
		}
	}
	return nil
}

// fatal returns err with FATAL severity, as PostgreSQL reports the errors
// of a backend's startup.
func fatal(err error) error {
	pe, ok := pgerr.As(err)
	if !ok {
		return err
	}
	c := *pe
	c.Severity = pgerr.SeverityFatal
	return &c
}

// parseStartupOptions returns the settings of an options command line in
// order, as PostgreSQL's process_postgres_switches reads them from a
// client: -c name=value and --name=value (the -c argument may also be the
// next word or attached: -csearch_path=s1), with "-" in the name meaning
// "_", and -e (DateStyle euro). The other switches of the postgres command
// are server-level or debugging options we do not have: 0A000. Anything
// else is 42601 with PostgreSQL's message.
func parseStartupOptions(options string) ([][2]string, error) {
	args := splitOptions(options)
	var pairs [][2]string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" { // getopt: the end of the switches
			if i+1 < len(args) {
				return nil, invalidArgument(args[i+1])
			}
			break
		}
		if len(a) < 2 || a[0] != '-' {
			return nil, invalidArgument(a)
		}
		flag := a[1]
		switch {
		case flag == 'c' || flag == '-':
			opt := a[2:]
			if opt == "" {
				if i+1 == len(args) {
					return nil, invalidArgument(a)
				}
				i++
				opt = args[i]
			}
			name, value, ok := strings.Cut(opt, "=")
			if !ok {
				if flag == '-' {
					return nil, pgerr.New(pgerr.SyntaxError, "--%s requires a value", opt)
				}
				return nil, pgerr.New(pgerr.SyntaxError, "-c %s requires a value", opt)
			}
			pairs = append(pairs, [2]string{strings.ReplaceAll(name, "-", "_"), value})
		case a == "-e": // European dates
			pairs = append(pairs, [2]string{"DateStyle", "euro"})
		case strings.IndexByte(postgresSwitches, flag) >= 0:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "command-line option -%c in the startup packet is not supported", flag).
				WithHint("Use -c name=value or --name=value.")
		default:
			return nil, invalidArgument(a)
		}
	}
	return pairs, nil
}

// postgresSwitches are the other switches of PostgreSQL's backend command
// line (process_postgres_switches' getopt string) but c, - and e.
const postgresSwitches = "BbCDdEFfhijklNnOPprSsTtvW"

func invalidArgument(arg string) error {
	return pgerr.New(pgerr.SyntaxError, "invalid command-line argument for server process: %s", arg).
		WithHint("Try \"postgres --help\" for more information.")
}

// splitOptions splits an options string into words like PostgreSQL's
// pg_split_opts: words are separated by white space; a backslash makes the
// next character (a space, a backslash) part of the word.
func splitOptions(s string) []string {
	var out []string
	var w strings.Builder
	inWord, escaped := false, false
	for _, r := range s {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped = false
		case r == '\\':
			escaped, inWord = true, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
			if inWord {
				out = append(out, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, w.String())
	}
	return out
}
