/*
 * parray — writing a database as dbgen-style .tbl files (pa_ssb_write_tbl): the reverse of the loader, so
 * that generated data can go to other systems and come back.  Kept columns are written as their integers or
 * their dictionary strings; free-text columns, which parray does not keep, get a placeholder naming the field
 * and the row ("c_name#17").  Each file is written under a temporary name and renamed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "ssb_internal.h"

static int write_table(const pa_ssb_db *db, const char *dir, pa_ssb_table t)
{
    char path[4096], tmp[4200];
    int nf, rc = PA_OK;
    const pa__ssb_field *fields = pa__ssb_fields(t, &nf);
    snprintf(path, sizeof path, "%s/%s.tbl", dir, pa__ssb_table_names[t]);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return pa__err(PA_ERR_SYS, "ssb: cannot create %s: %s", tmp, strerror(errno));
    for (int64_t r = 0; r < db->rows[t]; r++) {
        if (r % (1 << 20) == 0)
            pa__ssb_progress(pa__ssb_table_names[t], (double)r, (double)db->rows[t]);
        for (int k = 0; k < nf; k++) {
            int c = fields[k].col;
            if (c < 0)
                fprintf(f, "%s#%lld|", fields[k].name, (long long)r + 1);
            else if (pa__ssb_cols[c].dict)
                fprintf(f, "%s|", db->dict[c].str[db->col[c][r]]);
            else
                fprintf(f, "%d|", db->col[c][r]);
        }
        fputc('\n', f);
    }
    pa__ssb_progress(pa__ssb_table_names[t], (double)db->rows[t], (double)db->rows[t]);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        rc = pa__err(PA_ERR_SYS, "ssb: writing %s failed", path);
        remove(tmp);
    }
    return rc;
}

int pa_ssb_write_tbl(const pa_ssb_db *db, const char *dir)
{
    int rc = PA_OK;
    if (!db || !dir)
        return pa__err(PA_ERR_INVAL, "pa_ssb_write_tbl: NULL argument");
    if ((rc = pa__ssb_require_all(db, "pa_ssb_write_tbl")) != PA_OK)
        return rc;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return pa__err(PA_ERR_SYS, "ssb: cannot create directory %s: %s", dir, strerror(errno));
    for (int t = 0; t < PA_SSB_NTABLES && rc == PA_OK; t++)
        rc = write_table(db, dir, (pa_ssb_table)t);
    return rc;
}
