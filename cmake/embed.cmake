# Turns INPUT into a C file defining `const char SYMBOL[]` (NUL-terminated).
file(READ ${INPUT} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" hex "${hex}")
file(WRITE ${OUTPUT} "/* generated from ${INPUT}; do not edit */\nextern const char ${SYMBOL}[];\nconst char ${SYMBOL}[] = {\n${hex}0x00};\n")
