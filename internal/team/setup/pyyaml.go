package setup

import (
	"bytes"
	"regexp"
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
