package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// CompletionCmd prints a shell completion script made from the command tree,
// so it lists exactly the commands and flags this binary has.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"bash, zsh or fish."`
}

func (CompletionCmd) Help() string {
	return `Completes commands, flags, flag values (--format, --status, --type) and file names.

Examples:

    source <(callscribe completion bash)                      # this bash session
    callscribe completion bash > ~/.local/share/bash-completion/completions/callscribe
    callscribe completion zsh > "${fpath[1]}/_callscribe"     # then restart zsh
    callscribe completion fish > ~/.config/fish/completions/callscribe.fish`
}

func (c *CompletionCmd) Run(e *env, kctx *kong.Context) error {
	cmds := completionModel(kctx.Model.Node)
	switch c.Shell {
	case "bash":
		return writeBashCompletion(e.stdout, cmds)
	case "zsh":
		fmt.Fprint(e.stdout, "#compdef callscribe\n# zsh completion for callscribe, through zsh's bash completion support.\nautoload -U +X bashcompinit && bashcompinit\n")
		return writeBashCompletion(e.stdout, cmds)
	default:
		return writeFishCompletion(e.stdout, cmds)
	}
}

// completionCmd is one command of the tree as the scripts need it.
type completionCmd struct {
	path  string // "/jobs/list"; "" for callscribe itself
	help  string
	subs  []*completionCmd
	flags []completionFlag // its own and its parents' (global) flags
	files bool             // its arguments are files
	args  []string         // the values its argument takes, when a fixed set
}

type completionFlag struct {
	name   string
	short  rune
	help   string
	values []string // the values it takes, when a fixed set
	takes  bool     // it takes a value
	file   bool     // its value is a path
	global bool     // declared on callscribe itself
}

// completionValues are value sets of flags that are checked in code rather
// than by a kong enum (--format accepts any case; the list filters say which
// filter is wrong).
var completionValues = map[string][]string{
	"/transcribe --format": {"text", "txt", "json", "srt", "vtt"},
	"/jobs/list --status":  {"queued", "processing", "succeeded", "failed"},
	"/jobs/list --type":    {"transcription", "summary", "tags"},
}

// completionModel lists every visible command, parents before children.
func completionModel(root *kong.Node) []*completionCmd {
	var out []*completionCmd
	var walk func(n *kong.Node, path string) *completionCmd
	walk = func(n *kong.Node, path string) *completionCmd {
		c := &completionCmd{path: path, help: n.Help}
		out = append(out, c)
		for i, level := range n.AllFlags(true) {
			for _, f := range level {
				cf := completionFlag{name: f.Name, short: f.Short, help: f.Help, takes: !f.IsBool() && !f.IsCounter(),
					file: f.Tag.Type == "path" || f.Tag.Type == "existingfile", global: i == 0}
				for _, v := range f.EnumSlice() {
					if v = strings.TrimSpace(v); v != "" {
						cf.values = append(cf.values, v)
					}
				}
				if v, ok := completionValues[path+" --"+f.Name]; ok {
					cf.values = v
				}
				c.flags = append(c.flags, cf)
			}
		}
		for _, p := range n.Positional {
			if p.Tag.Type == "existingfile" || p.Tag.Type == "path" {
				c.files = true
			}
			for _, v := range p.EnumSlice() {
				if v = strings.TrimSpace(v); v != "" {
					c.args = append(c.args, v)
				}
			}
		}
		for _, child := range n.Children {
			if child.Type == kong.CommandNode && !child.Hidden {
				c.subs = append(c.subs, walk(child, path+"/"+child.Name))
			}
		}
		return c
	}
	walk(root, "")
	return out
}

func (c *completionCmd) name() string { return c.path[strings.LastIndexByte(c.path, '/')+1:] }

// words are the completions of a command: its subcommands and flags.
func (c *completionCmd) words() []string {
	w := slices.Clone(c.args)
	for _, s := range c.subs {
		w = append(w, s.name())
	}
	for _, f := range c.flags {
		w = append(w, "--"+f.name)
		if f.short != 0 {
			w = append(w, "-"+string(f.short))
		}
	}
	return w
}

func commandPaths(cmds []*completionCmd) []string {
	var paths []string
	for _, c := range cmds {
		if c.path != "" {
			paths = append(paths, c.path)
		}
	}
	return paths
}

// writeBashCompletion writes a bash completion function: the command path is
// the words that name commands (flag values never do), then the case for it.
func writeBashCompletion(w io.Writer, cmds []*completionCmd) error {
	var b strings.Builder
	b.WriteString(`# bash completion for callscribe (made by 'callscribe completion bash').
_callscribe() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path= i
	for ((i = 1; i < COMP_CWORD; i++)); do
		case "$path/${COMP_WORDS[i]}" in
		` + strings.Join(commandPaths(cmds), "|") + `) path=$path/${COMP_WORDS[i]} ;;
		esac
	done
	case "$path $prev" in
`)
	for _, c := range cmds {
		for _, f := range c.flags {
			if !f.takes || (f.global && c.path != "") {
				continue
			}
			// A global flag's value is completed after any command path.
			prefix := fmt.Sprintf("%q", c.path)
			if f.global {
				prefix = "*"
			}
			pattern := prefix + fmt.Sprintf("%q", " --"+f.name)
			if f.short != 0 {
				pattern += "|" + prefix + fmt.Sprintf("%q", " -"+string(f.short))
			}
			switch {
			case len(f.values) > 0:
				fmt.Fprintf(&b, "\t%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", pattern, strings.Join(f.values, " "))
			case f.file:
				fmt.Fprintf(&b, "\t%s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", pattern)
			default:
				fmt.Fprintf(&b, "\t%s) COMPREPLY=(); return ;;\n", pattern)
			}
		}
	}
	b.WriteString("\tesac\n\tcase \"$path\" in\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t%q) COMPREPLY=($(compgen -W %q -- \"$cur\"))", c.path, strings.Join(c.words(), " "))
		if c.files {
			b.WriteString("\n\t\t[[ $cur == -* ]] || COMPREPLY+=($(compgen -f -- \"$cur\"))")
		}
		b.WriteString(" ;;\n")
	}
	b.WriteString("\tesac\n}\ncomplete -o filenames -F _callscribe callscribe\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFishCompletion writes fish completions; __callscribe_path finds the
// command path as the bash function does.
func writeFishCompletion(w io.Writer, cmds []*completionCmd) error {
	var b strings.Builder
	b.WriteString(`# fish completion for callscribe (made by 'callscribe completion fish').
function __callscribe_path
	set -l path ""
	for w in (commandline -opc)[2..-1]
		switch "$path/$w"
			case ` + strings.Join(commandPaths(cmds), " ") + `
				set path "$path/$w"
		end
	end
	echo "$path"
end
complete -c callscribe -f
`)
	for _, c := range cmds {
		cond := fmt.Sprintf("test (__callscribe_path) = %q", c.path)
		for _, s := range c.subs {
			fmt.Fprintf(&b, "complete -c callscribe -n %s -a %s -d %s\n", fishQuote(cond), s.name(), fishQuote(s.help))
		}
		if c.files {
			fmt.Fprintf(&b, "complete -c callscribe -n %s -F\n", fishQuote(cond))
		}
		if len(c.args) > 0 {
			fmt.Fprintf(&b, "complete -c callscribe -n %s -a %s\n", fishQuote(cond), fishQuote(strings.Join(c.args, " ")))
		}
		for _, f := range c.flags {
			if f.global && c.path != "" {
				continue // written once, for every command, with the root's
			}
			line := "complete -c callscribe"
			if !f.global {
				line += " -n " + fishQuote(cond)
			}
			line += " -l " + f.name
			if f.short != 0 {
				line += " -s " + string(f.short)
			}
			switch {
			case len(f.values) > 0:
				line += " -x -a " + fishQuote(strings.Join(f.values, " "))
			case f.file:
				line += " -r -F"
			case f.takes:
				line += " -x"
			}
			b.WriteString(line + " -d " + fishQuote(firstSentence(f.help)) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fishQuote single-quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// firstSentence keeps a flag's help short enough for a completion menu.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i+1]
	}
	if i := slices.Index([]byte(s), '('); i > 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}
