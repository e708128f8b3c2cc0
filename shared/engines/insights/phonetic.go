package insights

import "strings"

// phoneticKey is a Metaphone-like key of a word (written for this package): the word's consonant skeleton after the common English spelling
// rules, so that the speech engine's misspellings of a word ("cancelation",
// "cancellation"; "charged", "chargd"; "refund", "refunt" is not: d and t
// stay apart) and homophones ("their", "there") share one key. Vowels count
// only as the first letter (all as "A"); the key is cut to 6 symbols, so long
// words that differ only in their endings ("verification", "verify") share it.
//
// Symbols: B F H J K L M N P R S T W X (sh/ch) Y 0 (th), and A for an initial
// vowel. It is not Lawrence Philips' Metaphone: fewer rules, no
// exceptions list; it only has to map one word's variants onto one key.
func phoneticKey(w string) string {
	w = strings.ToLower(w)
	var b []byte
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 'a' && c <= 'z' {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return ""
	}
	// Initial letter groups whose first letter is silent.
	s := string(b)
	for _, p := range []string{"kn", "gn", "pn", "wr", "ps"} {
		if strings.HasPrefix(s, p) {
			s = s[1:]
			break
		}
	}
	if strings.HasPrefix(s, "x") {
		s = "s" + s[1:]
	}
	if strings.HasPrefix(s, "wh") {
		s = "w" + s[2:]
	}
	isVowel := func(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }
	at := func(i int) byte {
		if i < 0 || i >= len(s) {
			return 0
		}
		return s[i]
	}
	var key []byte
	emit := func(c byte) {
		// Doubled sounds are one ("ll", "ck" -> K once).
		if len(key) > 0 && key[len(key)-1] == c {
			return
		}
		key = append(key, c)
	}
	for i := 0; i < len(s) && len(key) < 6; i++ {
		c := s[i]
		if i > 0 && c == s[i-1] && c != 'c' {
			continue
		}
		next, prev := at(i+1), at(i-1)
		switch c {
		case 'a', 'e', 'i', 'o', 'u':
			if i == 0 {
				emit('A')
			}
		case 'b':
			if !(prev == 'm' && i == len(s)-1) { // "climb"
				emit('B')
			}
		case 'c':
			switch {
			case next == 'h':
				emit('X')
				i++
			case next == 'i' || next == 'e' || next == 'y':
				emit('S')
			default:
				emit('K')
			}
		case 'd':
			if next == 'g' && (at(i+2) == 'e' || at(i+2) == 'i' || at(i+2) == 'y') {
				emit('J')
				i++
			} else {
				emit('T')
			}
		case 'g':
			switch {
			case next == 'h' && !isVowel(at(i+2)): // "night", "though"
				i++
			case next == 'n' && i+2 >= len(s): // "sign"
			case next == 'i' || next == 'e' || next == 'y':
				emit('J')
			default:
				emit('K')
			}
		case 'h':
			if isVowel(next) && !strings.ContainsRune("cgpst", rune(prev)) {
				emit('H')
			}
		case 'k':
			if prev != 'c' {
				emit('K')
			}
		case 'p':
			if next == 'h' {
				emit('F')
				i++
			} else {
				emit('P')
			}
		case 'q':
			emit('K')
		case 's':
			switch {
			case next == 'h':
				emit('X')
				i++
			case next == 'i' && (at(i+2) == 'o' || at(i+2) == 'a'): // "session"
				emit('X')
			default:
				emit('S')
			}
		case 't':
			switch {
			case next == 'i' && (at(i+2) == 'o' || at(i+2) == 'a'): // "nation"
				emit('X')
			case next == 'h':
				emit('0')
				i++
			case next == 'c' && at(i+2) == 'h': // "match"
			default:
				emit('T')
			}
		case 'v':
			emit('F')
		case 'w', 'y':
			if isVowel(next) {
				emit(c - 32)
			}
		case 'x':
			emit('K')
			emit('S')
		case 'z':
			emit('S')
		default: // f j l m n r
			emit(c - 32)
		}
	}
	return string(key)
}
