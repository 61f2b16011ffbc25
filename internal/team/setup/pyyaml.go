package setup

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// yaml12Directive is a %YAML 1.2 directive, which libyaml (the
// framework's PyYAML loads with it, CSafeLoader) takes as it takes
// %YAML 1.1, and yaml.v3 refuses ("found incompatible YAML document"):
// what comes before the minor version, and after it.
var yaml12Directive = regexp.MustCompile(`(?m)^(\x{FEFF}?%YAML[ \t]+0*1\.)0*2([^0-9]|$)`)

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
	if !yaml12Directive.Match(text[:end]) {
		return text
	}
	return append(yaml12Directive.ReplaceAll(text[:end], []byte("${1}1$2")), text[end:]...)
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

// pyYAMLImplicit are the types PyYAML gives a plain scalar other than a
// string, in Python's names (those of the framework's "Expected string
// got float"), by its resolver's expressions: YAML 1.1's, where 3.0 is a
// float, 3 and 0x3 ints, yes a bool, ~ and nothing a None.
var pyYAMLImplicit = sync.OnceValue(func() []pyYAMLResolver {
	return []pyYAMLResolver{
		{"bool", regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)},
		{"float", regexp.MustCompile(`^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|` +
			`[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)},
		{"int", regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)},
		{"NoneType", regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)},
		{"date", regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)},
		{"datetime", regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?$`)},
		{"merge key", regexp.MustCompile(`^(?:<<|=)$`)}, // nor a value PyYAML's safe loader builds
	}
})

// pyYAMLResolver is one of PyYAML's implicit types: its name, and what a
// plain scalar of it is.
type pyYAMLResolver struct {
	name string
	re   *regexp.Regexp
}

// pyYAMLType is the type PyYAML, which the framework reads YAML with,
// gives a value, in Python's names (str, bool, int, float, NoneType,
// list, dict, ...), and the value, through an alias if it is one; "" for
// a value not given. A scalar quoted or in block style is a str, one
// tagged (!!str 3.0) of its tag's type, and a plain one of the first
// pyYAMLImplicit type it matches, else a str.
func pyYAMLType(value *yaml.Node) (*yaml.Node, string) {
	if value.Kind == yaml.AliasNode {
		value = value.Alias
	}
	tags := map[string]string{"!!str": "str", "!!bool": "bool", "!!int": "int", "!!float": "float", "!!null": "NoneType", "!!timestamp": "datetime"}
	switch {
	case value.Kind != yaml.ScalarNode:
		return value, map[yaml.Kind]string{yaml.SequenceNode: "list", yaml.MappingNode: "dict"}[value.Kind]
	case value.Style&yaml.TaggedStyle != 0:
		return value, cmp.Or(tags[value.ShortTag()], value.Tag)
	case value.Style != 0:
		return value, "str"
	}
	for _, implicit := range pyYAMLImplicit() {
		if implicit.re.MatchString(value.Value) {
			return value, implicit.name
		}
	}
	return value, "str"
}

// pyYAMLBool is a YAML value as PyYAML, and so the framework, reads a
// boolean: YAML 1.1's, where yes and on are true as well as true, and no
// and off false (pyYAMLType); nil for a value that is not a boolean
// ('true' quoted is a string).
func pyYAMLBool(value *yaml.Node) *bool {
	value, got := pyYAMLType(value)
	switch word := strings.ToLower(value.Value); {
	case got != "bool":
		return nil
	case word == "true" || word == "yes" || word == "on":
		return new(true)
	case word == "false" || word == "no" || word == "off":
		return new(bool)
	}
	return nil
}

// pyYAMLString says why the framework refuses value, a setting it
// checks is a string (cfgv's check_string: "Expected string got float"),
// as PyYAML reads it (pyYAMLType); nil when it is one, or not given.
func pyYAMLString(setting string, value *yaml.Node) error {
	value, got := pyYAMLType(value)
	switch {
	case got == "str" || got == "":
		return nil
	case value.Kind == yaml.ScalarNode && value.Value != "":
		return fmt.Errorf("%s: expected string got %s (YAML 1.1 reads %s so): quote it", setting, got, value.Value)
	}
	return fmt.Errorf("%s: expected string got %s", setting, got)
}

// pyYAMLStrings is pyYAMLString for a setting the framework checks is a
// list of strings (cfgv's check_array(check_string)).
func pyYAMLStrings(setting string, value *yaml.Node) error {
	value, got := pyYAMLType(value)
	if got != "list" && got != "" {
		return fmt.Errorf("%s: expected list got %s", setting, got)
	}
	for i, item := range value.Content {
		if err := pyYAMLString(fmt.Sprintf("%s: item %d", setting, i+1), item); err != nil {
			return err
		}
	}
	return nil
}
