package commands

import (
	"math"
	"regexp"
	"strings"
	"sync"
)

// applyPatchRuns counts the commands of a shell script (without the
// patches it carries) that may run apply_patch, or applypatch, its other
// name: the guard refuses a script that runs it more often than on
// patches it can read. A command runs it when its name is apply_patch
// (quoted, escaped, by its path, after FOO=1, then, { or !), when it
// passes the word apply_patch to a command that may run it (nice -n 5,
// sudo -u x, xargs, find -exec, env, timeout 60, ...) or a script that
// runs it to a shell (bash -c, eval), and in a command substitution
// ($(...), `...`) or a heredoc a shell reads. Only the commands that run
// none of their arguments (echo, grep, which, command -v, git) may name
// apply_patch freely, and a comment. It reads the script as the shell
// does, quotes, escapes and line continuations included, so that a
// quoted # or ; is not taken for one; where it is unsure it counts a run
// too many, which refuses, rather than one too few, which lets an unread
// patch through.
func applyPatchRuns(script string) int {
	s := shellScan{src: script}
	s.commands(0)
	if s.tooDeep {
		return math.MaxInt
	}
	return s.runs
}

// maxNesting bounds the command substitutions the scan reads one inside
// another ($($($(...)))): past it, it stops and counts more runs than any
// script carries patches, which refuses. Honest scripts nest two or
// three; without a bound, 64 MB of $( would overflow the scan's stack.
const maxNesting = 64

// inertCommands run none of their arguments: a script may name
// apply_patch to them (grep -rn apply_patch docs, echo "run apply_patch").
const inertCommands = " echo printf which type whereis man grep egrep fgrep rg git cat tee head tail wc sort less "

// shellScan walks a script, counting runs of apply_patch as it goes.
type shellScan struct {
	src  string
	i    int
	runs int
	// depth counts the substitutions the scan is in; tooDeep says it
	// stopped at maxNesting.
	depth   int
	tooDeep bool
}

// heredoc is a heredoc whose body starts on the next line; inert when a
// command that runs none of its input reads it (cat > notes.md <<'EOF',
// apply_patch <<'EOF'), not another through a pipe, nor a command
// substitution.
type heredoc struct {
	delimiter          string
	tabs, quote, inert bool
}

// commands reads commands up to stop (the ) of a $(, the closing `, 0 for
// the script's end) and counts their runs.
func (s *shellScan) commands(stop byte) {
	var words []string
	var word strings.Builder
	inWord := false
	var heredocs []heredoc
	flush := func() {
		if inWord {
			words, inWord = append(words, word.String()), false
			word.Reset()
		}
	}
	var piped []string // an inert command whose output the next one reads
	end := func(pipe bool) {
		flush()
		s.add(commandRuns(words))
		if piped != nil && !inert(words) { // echo 'apply_patch < f' | sh: its arguments are a script, as eval's
			s.add(commandRuns(append([]string{"eval"}, commandWords(piped)[1:]...)))
		}
		piped = nil
		if pipe && inert(words) {
			piped = words
		}
		words = nil
	}
	for s.i < len(s.src) {
		c := s.src[s.i]
		s.i++
		switch {
		case c == stop && stop != 0:
			end(false)
			return
		case c == '\\' && s.i < len(s.src):
			if s.src[s.i] != '\n' { // \ and a newline join two lines
				word.WriteByte(s.src[s.i])
				inWord = true
			}
			s.i++
		case c == '\'':
			word.WriteString(s.quoted('\'', false))
			inWord = true
		case c == '$' && s.peek('\''): // $'...', with backslash escapes
			s.i++
			word.WriteString(s.quoted('\'', true))
			inWord = true
		case c == '"':
			word.WriteString(s.quoted('"', true))
			inWord = true
		case c == '`' || c == '$' && s.peek('('):
			s.substitution(c) // its output, which the guard cannot know, taken for none
			inWord = true
		case c == '#' && !inWord: // a comment, to the line's end
			comment, _, _ := strings.Cut(s.src[s.i:], "\n")
			s.i += len(comment)
		case c == ' ' || c == '\t' || c == '\r':
			flush()
		case c == '\n':
			end(false)
			s.heredocBodies(heredocs)
			heredocs = nil
		case strings.IndexByte(";&|()", c) >= 0:
			end(c == '|' && !s.peek('|'))
			for j := range heredocs {
				heredocs[j].inert = heredocs[j].inert && c != '|' // cat <<'EOF' | bash
			}
		case c == '<' && s.peek('<') && !strings.HasPrefix(s.src[s.i+1:], "<"):
			flush()
			h := s.heredocOperator()
			name := append(commandWords(words), "")[0]
			h.inert = stop == 0 && (inert(words) || isApplyPatch(name)) // a patch is not a script
			heredocs = append(heredocs, h)
		case c == '<' || c == '>':
			flush()
			for s.peek('<') || s.peek('>') || s.peek('&') { // <<<, >>, 2>&1
				s.i++
			}
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	end(false)
}

// substitution counts the runs in a command substitution, after its `
// or the $ of its $(.
func (s *shellScan) substitution(c byte) {
	if s.depth == maxNesting {
		s.tooDeep, s.i = true, len(s.src)
		return
	}
	s.depth++
	defer func() { s.depth-- }()
	if c == '$' {
		s.i++
		s.commands(')')
	} else {
		s.commands('`')
	}
}

// add counts n runs more; math.MaxInt, a scan that stopped at maxNesting,
// stops this one too.
func (s *shellScan) add(n int) {
	if n == math.MaxInt {
		s.tooDeep = true
	} else {
		s.runs += n
	}
}

func (s *shellScan) peek(c byte) bool { return s.i < len(s.src) && s.src[s.i] == c }

// quoted reads a quoted text from after its opening quote to close (the
// script's end if none), with backslash escapes in "...", $'...' and
// a heredoc's body, and counts the runs in the command substitutions
// the shell makes in "..." and a heredoc's body (close '\n').
func (s *shellScan) quoted(close byte, escapes bool) string {
	var b strings.Builder
	for s.i < len(s.src) {
		c := s.src[s.i]
		s.i++
		switch {
		case c == close:
			return b.String()
		case c == '\\' && escapes && s.i < len(s.src):
			b.WriteByte(s.src[s.i])
			s.i++
		case close != '\'' && (c == '`' || c == '$' && s.peek('(')):
			s.substitution(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// heredocOperator reads a heredoc's operator after its first <: <<WORD,
// <<-WORD, the word quoted in part or whole ('EOF', "EOF", \EOF) when
// the shell leaves the body as written.
func (s *shellScan) heredocOperator() heredoc {
	op := heredocWord().FindStringSubmatch(s.src[s.i+1:])
	s.i += 1 + len(op[0])
	return heredoc{delimiter: strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(op[2]), tabs: op[1] == "-", quote: strings.ContainsAny(op[2], `'"\`)}
}

var heredocWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(-?)[ \t]*([^ \t\r\n;&|()<>]*)`) })

// heredocBodies reads the bodies of the heredocs opened on the line just
// ended, one after the other: one a shell may run, line by line as a
// script (bash <<'EOF'); an inert command's for the command substitutions
// the shell makes in it (cat <<EOF with $(apply_patch < f)), and not at
// all when its delimiter is quoted.
func (s *shellScan) heredocBodies(heredocs []heredoc) {
	for _, h := range heredocs {
		for s.i < len(s.src) {
			line, _, _ := strings.Cut(s.src[s.i:], "\n")
			s.i = min(s.i+len(line)+1, len(s.src))
			if h.tabs {
				line = strings.TrimLeft(line, "\t")
			}
			if line = strings.TrimSuffix(line, "\r"); line == h.delimiter {
				break
			}
			body := shellScan{src: line, depth: s.depth}
			switch {
			case !h.inert:
				body.commands(0)
			case !h.quote:
				body.quoted('\n', true)
			}
			s.runs, s.tooDeep = s.runs+body.runs, s.tooDeep || body.tooDeep
		}
	}
}

// inert says whether a command's words run none of their arguments.
func inert(words []string) bool {
	words = commandWords(words)
	return len(words) > 0 && (strings.Contains(inertCommands, " "+words[0]+" ") || words[0] == "command" && len(words) > 1 && (words[1] == "-v" || words[1] == "-V"))
}

// commandWords are a command's words from its name on: without the
// reserved words and variable assignments before it.
func commandWords(words []string) []string {
	for len(words) > 0 && (strings.Contains(" ! { if then elif else do while until ", " "+words[0]+" ") || isAssignment(words[0])) {
		words = words[1:]
	}
	return words
}

// isAssignment says whether a word sets a variable (FOO=1).
func isAssignment(word string) bool {
	name, _, ok := strings.Cut(word, "=")
	return ok && name != "" && strings.Trim(name, letters+"_0123456789") == ""
}

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// isScriptFlag says whether a shell's option is followed by a script
// (bash -c, sh -lc, su -c).
func isScriptFlag(word string) bool {
	return len(word) > 1 && word[0] == '-' && word[len(word)-1] == 'c' && strings.Trim(word[1:], letters) == ""
}

// commandRuns counts the runs of apply_patch in one simple command.
func commandRuns(words []string) int {
	words = commandWords(words)
	switch {
	case len(words) == 0 || inert(words):
		return 0
	case isApplyPatch(words[0]):
		return 1
	}
	runs, script := 0, words[0] == "eval"
	for _, w := range words[1:] {
		if script {
			n := applyPatchRuns(w)
			if n == math.MaxInt {
				return n
			}
			runs += n
		} else if isApplyPatch(w) {
			runs++
		}
		script = script || isScriptFlag(w) // the arguments after are scripts
	}
	return runs
}

// isApplyPatch says whether a word names apply_patch, by its path too.
func isApplyPatch(word string) bool {
	name := word[strings.LastIndexByte(word, '/')+1:]
	return name == "apply_patch" || name == "applypatch"
}
