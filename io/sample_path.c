#include "sample_path.h"

#include <sndfile.h>

sample_path sample_path_for(int sf_format) {
  sample_path p = {SAMPLE_PATH_SHORT, 16};
  switch (sf_format & SF_FORMAT_SUBMASK) {
  case SF_FORMAT_PCM_S8:
  case SF_FORMAT_PCM_U8:
  case SF_FORMAT_DPCM_8:
    p.bits = 8;
    break;
  case SF_FORMAT_PCM_24:
  case SF_FORMAT_DWVW_24:
  case SF_FORMAT_ALAC_24:
    p.kind = SAMPLE_PATH_INT;
    p.bits = 24;
    break;
  case SF_FORMAT_ALAC_20:
    p.kind = SAMPLE_PATH_INT;
    p.bits = 20;
    break;
  case SF_FORMAT_PCM_32:
  case SF_FORMAT_ALAC_32:
    p.kind = SAMPLE_PATH_INT;
    p.bits = 32;
    break;
  case SF_FORMAT_FLOAT:
    p.kind = SAMPLE_PATH_FLOAT;
    p.bits = 32;
    break;
  case SF_FORMAT_DOUBLE:
    p.kind = SAMPLE_PATH_FLOAT;
    p.bits = 64;
    break;
  case SF_FORMAT_VORBIS:
  case SF_FORMAT_OPUS:
  case SF_FORMAT_MPEG_LAYER_I:
  case SF_FORMAT_MPEG_LAYER_II:
  case SF_FORMAT_MPEG_LAYER_III:
    p.kind = SAMPLE_PATH_LOSSY;
    break;
  default: /* PCM_16, u-law, A-law, ADPCM, GSM, G72x, DWVW 12/16, ALAC 16, ... */
    break;
  }
  return p;
}
