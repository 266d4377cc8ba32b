/* Text of the input quoted in a message (include/raid/core.h raid_show_text): the one escaping of every
 * message of the library and the CLI, so that a field holding ESC [ 2 J (which clears a terminal), a CR
 * (which sends the cursor back over the message), a NUL or bytes that are not text shows as \xHH. */
#include "core/internal.h"

#include <stdio.h>

const char *raid_show_text(char *out, const char *s, size_t n)
{
    if (!s) {
        snprintf(out, RAID_SHOW_CAP, "(null)");
        return out;
    }
    if (n == RAID_SHOW_NUL)
        n = strlen(s);
    const size_t m = n > RAID_SHOW_MAX ? RAID_SHOW_MAX : n;
    size_t o = 0;
    for (size_t i = 0; i < m; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c == '\\') {
            out[o++] = '\\';
            out[o++] = '\\';
        } else if (c >= 0x20 && c < 0x7F) {
            out[o++] = (char)c;
        } else {
            static const char hex[] = "0123456789ABCDEF";
            out[o++] = '\\', out[o++] = 'x', out[o++] = hex[c >> 4], out[o++] = hex[c & 15];
        }
    }
    if (n > m) /* the length says where the shown part ends: a field of 10 MB is not 80 bytes */
        o += (size_t)snprintf(out + o, RAID_SHOW_CAP - o, "... (%zu bytes)", n);
    out[o] = 0;
    return out;
}
