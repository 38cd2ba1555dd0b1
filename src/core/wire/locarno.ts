/**
 * A slice of the Locarno classification (the international classification of industrial designs):
 * real class codes and titles, each with product names that fit it. The dataset draws designs from
 * these; the search index matches class codes by prefix.
 */

/** A Locarno subclass with the products the dataset names in it. */
export interface LocarnoSubclass {
  readonly code: string
  readonly title: string
  readonly products: ReadonlyArray<string>
}

/** One subclass a line: code, title, and the products named in it (comma-separated). */
const table = `
01-01 | Bakers' products, biscuits, pastry, macaroni and other cereal products, chocolates, confectionery, ices | biscuit, chocolate, confectionery, pastry
02-02 | Garments | shirt, dress, jacket, trousers, swimsuit, coat, clothing
02-03 | Headwear | hat, cap, helmet, visor
02-04 | Footwear, socks and stockings | shoe, boot, sandal, sock, shoe sole
02-05 | Neckties, scarves, neckerchiefs and handkerchiefs | necktie, scarf
02-06 | Gloves | glove, mitten
03-01 | Trunks, suitcases, briefcases, handbags, keyholders, cases specially designed for their contents, wallets and similar articles | suitcase, handbag, wallet, backpack, phone case
03-03 | Umbrellas, parasols, sunshades and walking sticks | umbrella, parasol, walking stick
04-02 | Toilet brushes, brushes for the care of the person and clothes brushes | toothbrush, hairbrush
05-05 | Padding and stuffing materials | cushion insert, padding
06-01 | Seats | chair, stool, armchair, sofa, bench, office chair
06-02 | Beds | bed, bunk bed, cot
06-03 | Tables and similar furniture | table, desk, coffee table
06-04 | Storage furniture | cabinet, wardrobe, bookcase, shelving unit
06-11 | Carpets, mats and rugs | rug, mat, carpet tile
07-01 | China, glassware, dishes and other articles of a similar nature | plate, cup, bowl, mug, drinking glass
07-02 | Cooking appliances, utensils and containers | frying pan, saucepan, kettle, baking tray
07-03 | Table knives, forks and spoons | knife, fork, spoon
08-05 | Other tools and implements | spanner, screwdriver, hammer, pliers
08-08 | Clamps, supports or mountings for fixing | bracket, clamp, wall mount
09-01 | Bottles, flasks, pots, carboys, demijohns, and pressurized containers | bottle, flask, jar
09-03 | Boxes, cases, containers, (preserve) tins or cans | box, container, tin, packaging
10-02 | Watches and wrist watches | wrist watch, watch face, smartwatch
10-04 | Other measuring instruments, apparatus and devices | thermometer, scale, gauge
11-01 | Jewellery | ring, necklace, earring, bracelet, pendant
12-08 | Motor cars, buses and lorries | car, truck, bus, vehicle body
12-11 | Cycles and motorcycles | bicycle, motorcycle, scooter
12-16 | Parts, equipment and accessories for vehicles, not included in other classes or subclasses | wheel, car mirror, bumper, roof rack
13-02 | Power transformers, rectifiers, batteries and accumulators | battery, charger, power bank
13-03 | Equipment for distribution or control of electric power | power outlet, switch, plug
14-02 | Data processing equipment as well as peripheral apparatus and devices | computer, keyboard, computer mouse, laptop
14-03 | Communications equipment, wireless remote controls and radio amplifiers | mobile phone, remote control, router, headset
14-04 | Screen displays and icons | graphical user interface, icon, screen display
15-05 | Washing, cleaning and drying machines | washing machine, dishwasher, dryer
16-06 | Optical articles | spectacles, sunglasses, spectacle frame
17-03 | Stringed instruments | guitar, violin, ukulele
19-06 | Materials and instruments for writing by hand, for drawing, for painting, for sculpture, for engraving and for other artistic techniques | pen, pencil, marker
20-02 | Display and sales equipment | display stand, shop display
21-01 | Games and toys | toy, puzzle, board game, doll
21-02 | Gymnastics and sports apparatus and equipment | surfboard, skateboard, tennis racquet, exercise machine
21-03 | Other amusement and entertainment articles | swing, slide, trampoline
23-01 | Fluid distribution equipment | tap, valve, pipe fitting
23-02 | Sanitary appliances | toilet, basin, shower head, bath
23-04 | Ventilation and air-conditioning equipment | fan, air conditioner, air purifier
24-01 | Apparatus and equipment for doctors, hospitals and laboratories | medical device, syringe, stethoscope
25-01 | Building materials | brick, roof tile, paver
25-02 | Prefabricated or pre-assembled building parts | window frame, door, panel
26-05 | Lamps, standard lamps, chandeliers, wall and ceiling fixtures, lampshades, reflectors | lamp, light fitting, lampshade, chandelier
27-01 | Tobacco, cigars and cigarettes | cigarette packet
28-03 | Toilet articles and beauty parlour equipment | razor, hair dryer, hair straightener
29-02 | Equipment for safety and rescue, not elsewhere specified | safety vest, life jacket
30-01 | Animal clothing | dog coat, horse rug
30-99 | Miscellaneous | pet bed, pet bowl, dog lead
31-00 | Machines and appliances for preparing food or drink | coffee machine, blender, toaster, juicer
32-00 | Graphic symbols and logos, surface patterns, ornamentation | logo, surface pattern, ornament
`

/** The subclasses designs are drawn from. */
export const subclasses: ReadonlyArray<LocarnoSubclass> = table.trim().split("\n").map((line) => {
  const [code = "", title = "", products = ""] = line.split(" | ")
  return { code, title, products: products.split(", ") }
})

/** A code with its punctuation removed and lower-cased: `06-01` and `0601` read the same. */
export const normalizeCode = (code: string): string => code.toLowerCase().replace(/[^0-9a-z]/g, "")
