package setup

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// yaml12Directive is a %YAML 1.2 directive, which libyaml (the
// framework's PyYAML loads with it, CSafeLoader) takes as it takes
// %YAML 1.1, and yaml.v3 refuses ("found incompatible YAML document"):
// what comes before the minor version, and after it.
var yaml12Directive = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(\x{FEFF}?%YAML[ \t]+0*1\.)0*2([^0-9]|$)`) })

// libyamlDirectives is text with a %YAML 1.2 directive in its prologue
// (the blank lines, comments and directives before its first document)
// made %YAML 1.1, so that yaml.v3 loads what libyaml loads; both refuse
// another version than 1.1 and 1.2, a %YAML directive twice, and a
// directive of another name than YAML and TAG. text itself when it has
// none.
func libyamlDirectives(text []byte) []byte {
	end := 0
	for end < len(text) {
		line, _, _ := bytes.Cut(text[end:], []byte("\n"))
		word := bytes.TrimLeft(bytes.TrimPrefix(line, []byte("\ufeff")), " \t\r")
		if len(word) > 0 && word[0] != '#' && word[0] != '%' {
			break
		}
		end = min(end+len(line)+1, len(text))
	}
	if !yaml12Directive().Match(text[:end]) {
		return text
	}
	return append(yaml12Directive().ReplaceAll(text[:end], []byte("${1}1$2")), text[end:]...)
}

// pyYAMLMerges gives a mapping with two or more << merge keys the merges
// PyYAML makes of them, as yaml.v3's own: the last << key's value becomes
// one sequence of each one's mappings (a sequence's in its order), the
// last key's first. PyYAML merges them all, a later key's over an
// earlier's, where yaml.v3 refuses the mapping, or, with the key given
// once (readKeysOnly), merges the last only; of a sequence both take
// the first mapping over those after it.
func pyYAMLMerges(mapping *yaml.Node) {
	var merges []*yaml.Node
	last := -1
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		if k := mapping.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge" {
			merges, last = append([]*yaml.Node{mapping.Content[i+1]}, merges...), i
		}
	}
	if len(merges) < 2 {
		return
	}
	all := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, merge := range merges {
		if merge.Kind == yaml.SequenceNode {
			all.Content = append(all.Content, merge.Content...)
		} else {
			all.Content = append(all.Content, merge)
		}
	}
	mapping.Content[last+1] = all
}

// pyYAMLBool is a YAML value as PyYAML, and so the framework, reads a
// boolean: YAML 1.1's, where yes and on are true as well as true (plain or
// tagged !!bool; 'true' quoted is a string, which the framework refuses:
// frameworkRefusal), through an alias if it is one.
func pyYAMLBool(value *yaml.Node) bool {
	if value.Kind == yaml.AliasNode {
		value = value.Alias
	}
	plain := value.Kind == yaml.ScalarNode && (value.Style == 0 || value.ShortTag() == "!!bool")
	return plain && slices.Contains([]string{"true", "yes", "on"}, strings.ToLower(value.Value))
}
