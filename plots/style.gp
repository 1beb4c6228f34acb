# plots/style.gp -- the one style of every figure (loaded first by each NAME.gp).
#
# Series: the Okabe-Ito palette, which colour-blind readers tell apart, each colour with
# its own dash type and point type, so that a figure printed in grey still separates its
# lines.  Okabe-Ito's yellow is too pale on white; black takes its place and a mid grey
# is the eighth.  A panel draws at most eight series (small multiples beyond that):
#
#   lt 1 blue     solid         filled circle      lt 5 orange   long dash      filled inv. triangle
#   lt 2 vermil.  dash          filled square      lt 6 sky blue dash-dot-dot  open circle
#   lt 3 green    dash-dot      filled triangle    lt 7 black    fine dot      open square
#   lt 4 purple   dot           filled diamond     lt 8 grey     dash-dot long open triangle
#
# A figure is drawn on a canvas of W x H pixels at 96 dpi, its text in points (FONTSIZE for
# labels, TITLESIZE for the figure's title), and written in four formats of one type scale:
#
#   figures/NAME.png       W x H
#   figures/NAME@2x.png    2W x 2H, every text, line and point twice as large
#   figures/NAME.svg       W x H px
#   figures/NAME.pdf       W/96 x H/96 in
#
# The three terminals scale text, lines and points differently; the fontscale, linewidth
# and pointsize factors below, measured by rendering one title, one line and one point in
# each (the SVG in Chromium, the PDF at 96 dpi), give the same proportions in all four.
#
#   load "style.gp"
#   do for [fmt in FORMATS] {
#       eval terminal(fmt, 1200, 560)
#       ... the figure ...
#   }

set encoding utf8

FONT      = "DejaVu Sans"
FONTSIZE  = 13
TITLESIZE = 15
FORMATS   = "png png2x svg pdf"
if (!exists("out")) out = "figures/figure"

set linetype 1 lc rgb "#0072B2" lw 2.5 dt 1            pt 7  ps 1.1
set linetype 2 lc rgb "#D55E00" lw 2.5 dt (10,5)       pt 5  ps 1.0
set linetype 3 lc rgb "#009E73" lw 2.5 dt (12,4,3,4)   pt 9  ps 1.2
set linetype 4 lc rgb "#CC79A7" lw 2.5 dt (3,4)        pt 13 ps 1.3
set linetype 5 lc rgb "#E69F00" lw 2.5 dt (20,6)       pt 11 ps 1.2
set linetype 6 lc rgb "#56B4E9" lw 2.5 dt (12,4,3,4,3,4) pt 6 ps 1.1
set linetype 7 lc rgb "#000000" lw 2.5 dt (1,3)        pt 4  ps 1.0
set linetype 8 lc rgb "#7F7F7F" lw 2.5 dt (20,5,4,5)   pt 8  ps 1.2
set linetype cycle 8

# colours by name, for labels, arrows and fills that follow a series
BLUE = "#0072B2"; VERMILLION = "#D55E00"; GREEN = "#009E73"; PURPLE = "#CC79A7"
ORANGE = "#E69F00"; SKY = "#56B4E9"; BLACK = "#000000"; GREY = "#7F7F7F"

set grid lc rgb "#D0D0D0" lw 1 dt 1
set border lw 1
set key noautotitle opaque box lc rgb "#D0D0D0" samplen 3 spacing 1.15

# Point sizes: pngcairo alone has a pointscale, so each format sets PS, the factor of
# every point size, and the linetypes' sizes with it.  A script that sizes a point
# itself writes ps k*PS.
pointsizes(s) = sprintf("PS = %g; set linetype 1 ps %g; set linetype 2 ps %g; set linetype 3 ps %g; set linetype 4 ps %g; set linetype 5 ps %g; set linetype 6 ps %g; set linetype 7 ps %g; set linetype 8 ps %g", s, 1.1*s, 1.0*s, 1.2*s, 1.3*s, 1.2*s, 1.1*s, 1.0*s, 1.2*s)
PS = 1

# the command that opens figure `out` in format fmt on a canvas of w x h pixels
terminal(fmt, w, h) = \
  fmt eq "png"   ? sprintf("set terminal pngcairo size %d,%d enhanced font '%s,%g' linewidth 1 dashlength 1; set output '%s.png'; ", w, h, FONT, FONTSIZE, out).pointsizes(1) : \
  fmt eq "png2x" ? sprintf("set terminal pngcairo size %d,%d enhanced font '%s,%g' fontscale 2 linewidth 2 pointscale 2 dashlength 1; set output '%s@2x.png'; ", 2*w, 2*h, FONT, FONTSIZE, out).pointsizes(1) : \
  fmt eq "svg"   ? sprintf("set terminal svg size %d,%d enhanced font '%s,%g' fontscale 1.3333 linewidth 1 background 'white'; set output '%s.svg'; ", w, h, FONT, FONTSIZE, out).pointsizes(0.614) : \
  fmt eq "pdf"   ? sprintf("set terminal pdfcairo size %.4fin,%.4fin enhanced font '%s,%g' fontscale 0.75 linewidth 1.3333 dashlength 1; set output '%s.pdf'; ", w/96.0, h/96.0, FONT, FONTSIZE, out).pointsizes(0.75) : \
  sprintf("print 'style.gp: unknown format %s'; exit status 1", fmt)

# the figure's title, in the title size (multiplot title "..." font TITLEFONT)
TITLEFONT = sprintf(",%g", TITLESIZE)
